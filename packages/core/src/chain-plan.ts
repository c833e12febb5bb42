/**
 * Chain compression planning (CAP-CHAIN-3/5/6/8/10): which detected chains are eligible, and for each
 * one what the worker must write: a covered chain reuses its per-batch summaries (optionally fused by
 * one LLM call), an uncovered chain gets index records backfilled and a deterministic body. The plan is
 * pure; the worker commits it (records before the chain entry, CAP-CHAIN-9).
 */
import type { DetectedChain } from "./chain-detect.ts";
import type { ResolvedRange } from "./chain-range.ts";
import { resolveRanges } from "./chain-range.ts";
import { contentHash, storedPreview, utf8ByteLength } from "./content-hash.ts";
import { occKey } from "./keys.ts";
import {
  isAssistant,
  isToolResult,
  numericTimestamp,
  resultText,
  toolCallArgs,
  toolCallsOf,
  type AgentMessage,
} from "./messages.ts";
import { isProtectedCall, protectionRules } from "./protection.ts";
import { isChainDeferred } from "./recovery-grace.ts";
import type { CondenseSettings } from "./settings.ts";
import type { CondenseState } from "./state.ts";
import type { ChainEntry, ToolCallRecord } from "./state-types.ts";

/** A detected chain that can be compressed: closed, with a start timestamp. */
export type ClosedChain = DetectedChain & { startUserTimestamp: number; finalAssistantTimestamp: number };

export interface EligibilityOptions {
  /** K: the newest K candidates stay raw. */
  rollingWindow: number;
  /** Occurrence keys (or bare ids) of recovery results still in grace: `graceSet(branch, K)` (CAP-QUERY-5). */
  graceKeys: ReadonlySet<string>;
}

/** Occurrence keys when the chain has any, else its bare ids (CAP-CHAIN-5 "lookup keys"). */
export function chainLookupKeys(chain: Pick<DetectedChain, "middleOccurrenceKeys" | "middleToolCallIds">): string[] {
  return chain.middleOccurrenceKeys.length > 0 ? chain.middleOccurrenceKeys : chain.middleToolCallIds;
}

/**
 * CAP-CHAIN-3. Candidates: closed, not yet compressed, at least one middle id. The newest K stay raw.
 * Grace deferral applies after the window slice, so a deferred chain neither shrinks the window nor
 * promotes another chain into eligibility.
 */
export function selectEligibleChains(
  chains: readonly DetectedChain[],
  state: { readonly chains: readonly Pick<ChainEntry, "startUserTimestamp">[] },
  options: EligibilityOptions,
): ClosedChain[] {
  const compressed = new Set<number>();
  for (const c of state.chains) compressed.add(c.startUserTimestamp);
  const candidates: ClosedChain[] = [];
  for (const c of chains) {
    if (c.finalAssistantTimestamp === null || c.startUserTimestamp === null) continue;
    if (compressed.has(c.startUserTimestamp)) continue;
    if (c.middleToolCallIds.length === 0) continue;
    candidates.push(c as ClosedChain);
  }
  const k = Math.max(0, Math.floor(Number.isFinite(options.rollingWindow) ? options.rollingWindow : 0));
  const older = candidates.slice(0, Math.max(0, candidates.length - k));
  return older.filter((c) => !isChainDeferred(c, options.graceKeys));
}

/** `b<max+1>` over the registry's block ids (monotonic per branch). */
export function nextBlockNumber(chains: readonly Pick<ChainEntry, "blockId">[]): number {
  let max = 0;
  for (const c of chains) {
    const m = /^b(\d+)$/.exec(c.blockId);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

// ------------------------------------------------------------------ deterministic body (CAP-CHAIN-10)

export const DETERMINISTIC_BODY_HEADER =
  "Condensed without a summary (no per-batch summary existed for this span); every raw output is recoverable with context_tree_query.";
const ARGS_EXCERPT_MAX = 200;

export function argsExcerpt(args: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(args ?? {}) ?? "{}";
  } catch {
    json = "{}";
  }
  return json.length > ARGS_EXCERPT_MAX ? `${json.slice(0, ARGS_EXCERPT_MAX)}...` : json;
}

/**
 * CAP-CHAIN-10 body: seven lines, a pure function of the records and refs (no clock, no LLM), so the
 * chain renders byte-identically forever. Order and span by `resultTimestamp ?? timestamp`.
 */
export function deterministicChainBody(
  records: readonly Pick<ToolCallRecord, "toolCallId" | "toolName" | "args" | "timestamp" | "resultTimestamp">[],
  refs: readonly string[],
): string {
  const at = (r: (typeof records)[number]) => r.resultTimestamp ?? r.timestamp;
  const sorted = records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => at(a.r) - at(b.r) || a.i - b.i)
    .map((x) => x.r);
  const counts = new Map<string, number>();
  for (const r of sorted) counts.set(r.toolName, (counts.get(r.toolName) ?? 0) + 1);
  const tools = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([name, n]) => `${name} x${n}`)
    .join(", ");
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const iso = (ms: number | undefined) => (ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : "?");
  const span = first && last ? Math.round((at(last) - at(first)) / 1000) : 0;
  const refList = refs.length > 0 ? refs : sorted.map((r) => r.toolCallId);
  return [
    DETERMINISTIC_BODY_HEADER,
    `Calls: ${sorted.length}`,
    `Tools: ${tools}`,
    `Span: ${iso(first && at(first))} -> ${iso(last && at(last))} (${span}s)`,
    `First: ${first ? `${first.toolName} ${argsExcerpt(first.args)}` : "-"}`,
    `Last: ${last ? `${last.toolName} ${argsExcerpt(last.args)}` : "-"}`,
    `Refs: ${refList.join(", ")}`,
  ].join("\n");
}

// ------------------------------------------------------------------ planning (CAP-CHAIN-5/6/8)

export interface CoveredChainPlan {
  kind: "covered";
  chain: ClosedChain;
  blockId: string;
  /** Distinct per-batch summary texts covering the chain, in registration order. */
  summaryTexts: string[];
  /** True when fusion is on and at least two distinct summaries cover the chain (CAP-CHAIN-7). */
  fuse: boolean;
  /** The entry to persist; `withFusedSummary` adds an LLM fusion result when there is one. */
  entry: ChainEntry;
}

export interface DeterministicChainPlan {
  kind: "deterministic";
  chain: ClosedChain;
  blockId: string;
  /** Records to backfill (turnIndex -1, timestamp = resultTimestamp, refs minted), in span order. */
  fresh: ToolCallRecord[];
  /** Full bodies of fresh records stored out of line (`stored` set, `resultText` ""), by key. */
  storedBodies: Map<string, string>;
  /** Records already in the index under the chain's lookup keys. */
  indexed: ToolCallRecord[];
  body: string;
  entry: ChainEntry;
}

export interface SkippedChainPlan {
  kind: "skip";
  chain: ClosedChain;
  reason: "no-summary";
  diagnostic?: { kind: "backfill-empty"; dedupKey: string; detail: string };
}

export type ChainPlanItem = CoveredChainPlan | DeterministicChainPlan | SkippedChainPlan;

export interface ChainPlan {
  items: ChainPlanItem[];
  /** The ref counter after the refs this plan minted for backfilled records. */
  nextRef: number;
  /** The block counter after this plan. */
  nextBlock: number;
}

export interface PlanOptions {
  /** `compressedAt` of new entries (also the synthetic's timestamp); supplied by the caller. */
  compressedAt: number;
  settings: Pick<
    CondenseSettings,
    "protectedTools" | "protectedPaths" | "spillThreshold" | "spillPreviewBytes" | "chainCompression"
  >;
}

/**
 * Plan compression of eligible chains against the detection array (branch messages plus the closing
 * message on the reply path). Blocks and refs are numbered in chain order from the state's counters.
 */
export function planChainCompression(
  detection: readonly AgentMessage[],
  eligible: readonly ClosedChain[],
  state: CondenseState,
  options: PlanOptions,
): ChainPlan {
  const order = new Map<string, number>();
  state.summaries.forEach((s, i) => {
    order.set(s.id, i);
  });
  const ranges = resolveRanges(detection, eligible);
  const rules = protectionRules(options.settings);
  let nextRef = state.nextRef;
  let nextBlock = nextBlockNumber(state.chains);
  const items: ChainPlanItem[] = [];

  for (const [at, chain] of eligible.entries()) {
    const keys = chainLookupKeys(chain);
    const covering = new Map<string, number>();
    for (const k of keys)
      for (const s of state.summariesByKey.get(k) ?? [])
        if (!covering.has(s.text)) covering.set(s.text, order.get(s.id) ?? 0);
    const baseEntry = {
      startUserTimestamp: chain.startUserTimestamp,
      finalAssistantTimestamp: chain.finalAssistantTimestamp,
      droppedToolCallIds: chain.middleToolCallIds.slice(),
      droppedOccurrenceKeys: chain.middleOccurrenceKeys.slice(),
      ...(chain.protectedToolCallIds.length > 0 ? { protectedToolCallIds: chain.protectedToolCallIds.slice() } : {}),
      compressedAt: options.compressedAt,
    };

    if (covering.size > 0) {
      const summaryTexts = [...covering].sort((a, b) => a[1] - b[1]).map(([t]) => t);
      const blockId = `b${nextBlock++}`;
      items.push({
        kind: "covered",
        chain,
        blockId,
        summaryTexts,
        fuse: options.settings.chainCompression.fuseRangeSummary && summaryTexts.length >= 2,
        entry: { blockId, ...baseEntry, toolRefs: refsOf(state, keys, new Map()), bodySource: "concat" },
      });
      continue;
    }

    const indexed: ToolCallRecord[] = [];
    const seen = new Set<string>();
    for (const k of keys) {
      const r = state.records.get(k);
      if (r && !seen.has(r.key)) {
        seen.add(r.key);
        indexed.push(r);
      }
    }
    const extracted = extractChainRecords(detection, ranges[at]!, state, rules);
    const minted = new Map<string, string>();
    const storedBodies = new Map<string, string>();
    const fresh: ToolCallRecord[] = [];
    for (const r of extracted) {
      const shortRef = `t${nextRef++}`;
      minted.set(r.key, shortRef);
      let rec: ToolCallRecord = { ...r, shortRef };
      if (r.resultText.length >= options.settings.spillThreshold) {
        storedBodies.set(r.key, r.resultText);
        rec = {
          ...rec,
          resultText: "",
          contentHash: contentHash(r.toolName, r.resultText),
          stored: {
            bytes: utf8ByteLength(r.resultText),
            preview: storedPreview(r.resultText, options.settings.spillPreviewBytes),
          },
        };
      }
      fresh.push(rec);
    }
    if (fresh.length === 0 && indexed.length === 0) {
      const protectedIds = new Set(chain.protectedToolCallIds);
      const allProtected = chain.middleToolCallIds.every((id) => protectedIds.has(id));
      items.push(
        allProtected
          ? { kind: "skip", chain, reason: "no-summary" }
          : {
              kind: "skip",
              chain,
              reason: "no-summary",
              diagnostic: {
                kind: "backfill-empty",
                dedupKey: String(chain.startUserTimestamp),
                detail: `middles=${chain.middleToolCallIds.length}`,
              },
            },
      );
      continue;
    }
    const toolRefs = refsOf(state, keys, minted);
    const body = deterministicChainBody([...indexed, ...fresh], toolRefs);
    const blockId = `b${nextBlock++}`;
    items.push({
      kind: "deterministic",
      chain,
      blockId,
      fresh,
      storedBodies,
      indexed,
      body,
      entry: { blockId, ...baseEntry, toolRefs, rangeSummaryText: body, bodySource: "deterministic" },
    });
  }
  return { items, nextRef, nextBlock };
}

/** Registered refs of the lookup keys, in order, without repeats (aliases share their original's ref). */
function refsOf(state: CondenseState, keys: readonly string[], minted: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const k of keys) {
    const ref = state.keyToRef.get(k) ?? minted.get(k);
    if (ref && !seen.has(ref)) {
      seen.add(ref);
      out.push(ref);
    }
  }
  return out;
}

/** Record the fusion call's result on a covered entry (CAP-CHAIN-7); empty or null keeps concatenation. */
export function withFusedSummary(entry: ChainEntry, fused: string | null | undefined): ChainEntry {
  const text = typeof fused === "string" ? fused.trim() : "";
  if (!text) return entry;
  return { ...entry, rangeSummaryText: text, bodySource: "llm" };
}

/**
 * CAP-CHAIN-8 `extractChainRecords`: walk the resolved span; each result whose call was opened in the
 * span, is not protected, has a numeric timestamp and is not in the index map (index membership, not
 * isSummarized, so fully-deduped chains are still backfilled) becomes a record with turnIndex -1 and
 * timestamp = resultTimestamp. Without a resolved span there is nothing to extract (fail closed).
 */
export function extractChainRecords(
  detection: readonly AgentMessage[],
  range: ResolvedRange | null,
  state: Pick<CondenseState, "records">,
  rules: ReturnType<typeof protectionRules>,
): ToolCallRecord[] {
  if (!range) return [];
  const opened = new Map<string, { name: string; args: Record<string, unknown> }>();
  const out: ToolCallRecord[] = [];
  const taken = new Set<string>();
  for (let i = range.startIndex + 1; i < range.endIndex; i++) {
    const m = detection[i];
    if (isAssistant(m)) {
      for (const b of toolCallsOf(m))
        opened.set(b.id, { name: typeof b.name === "string" ? b.name : "", args: toolCallArgs(b) });
      continue;
    }
    if (!isToolResult(m)) continue;
    const call = opened.get(m.toolCallId);
    const ts = numericTimestamp(m);
    if (!call || ts === undefined) continue;
    const toolName = call.name || m.toolName;
    if (isProtectedCall(rules, toolName, call.args) || rules.tools.has(m.toolName)) continue;
    const key = occKey(m.toolCallId, ts);
    if (state.records.has(key) || taken.has(key)) continue;
    taken.add(key);
    out.push({
      key,
      toolCallId: m.toolCallId,
      toolName,
      args: call.args,
      resultText: resultText(m),
      isError: m.isError === true,
      turnIndex: -1,
      timestamp: ts,
      resultTimestamp: ts,
      backfilled: true,
    });
  }
  return out;
}
