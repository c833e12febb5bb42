/**
 * Continuing a session that pi-condense condensed (issue 16 item 5, spec CAP-PERSIST-1): its
 * `contextPrune` settings and the state it left in the session's entries, read into Condense's own
 * state so the session goes on with its refs, summaries and chains instead of being summarized again:
 *   context-prune-index (custom)            -> records (occurrence-keyed; backfilled ones with their refs)
 *   context-prune-summary (custom_message)  -> summaries (already in the branch: never delivered again)
 *   context-prune-dedup-alias (custom)      -> dedup aliases (inherit the original's ref)
 *   context-prune-chain (custom)            -> compressed chains
 *   context-prune-frontier (custom)         -> the frontier (last entry with lastAttemptedToolCallId wins)
 *   context-prune-stats (custom)            -> summarizer stats (last snapshot wins)
 * Pure functions of the branch entries (oldest first), so they are tested without pi.
 */
import { createHash } from "node:crypto";
import {
  isObject,
  normalizeSettings,
  occKey,
  type ChainEntry,
  type CondenseSettings,
  type DedupAlias,
  type Frontier,
  type FlushOutcome,
  type SummarizerStats,
  type SummaryEntry,
  type SummaryRef,
  type ToolCallRecord,
} from "@condense/core";

export const PI_CONDENSE_SETTINGS_KEY = "contextPrune";
export const PI_CONDENSE_TYPES = {
  summary: "context-prune-summary",
  index: "context-prune-index",
  alias: "context-prune-dedup-alias",
  chain: "context-prune-chain",
  frontier: "context-prune-frontier",
  stats: "context-prune-stats",
} as const;

/** What the service's import route takes (POST /v1/sessions/{id}/imports). */
export interface PiCondenseImport {
  /** Same entries, same id: a repeated import is a no-op. */
  importId: string;
  records: (ToolCallRecord & { storedBody?: string })[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  chains: Omit<ChainEntry, "blockId">[];
  frontier: Frontier | null;
  stats: SummarizerStats | null;
}

/** pi-condense's settings as Condense settings: the same keys, one renamed. Unknown keys round-trip. */
export function settingsFromContextPrune(stored: Record<string, unknown>): CondenseSettings {
  const { showPruneStatusLine, ...rest } = stored;
  return normalizeSettings({
    ...rest,
    ...(typeof showPruneStatusLine === "boolean" ? { showStatusLine: showPruneStatusLine } : {}),
  });
}

interface BranchEntry {
  type: string;
  customType?: string;
  data?: unknown;
  content?: unknown;
  details?: unknown;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c) => isObject(c) && c.type === "text" && typeof c.text === "string")
    .map((c) => (c as { text: string }).text)
    .join("\n");
}

/** details.toolCallRefs, or the legacy toolCallIds[] (shortId = the id itself). */
function refsOf(details: unknown): SummaryRef[] {
  if (!isObject(details)) return [];
  if (Array.isArray(details.toolCallRefs)) {
    return details.toolCallRefs.flatMap((r): SummaryRef[] => {
      if (!isObject(r) || !str(r.shortId) || !str(r.toolCallId)) return [];
      const ts = num(r.resultTimestamp);
      return [
        {
          shortId: r.shortId as string,
          toolCallId: r.toolCallId as string,
          ...(ts !== undefined ? { resultTimestamp: ts } : {}),
        },
      ];
    });
  }
  if (Array.isArray(details.toolCallIds))
    return details.toolCallIds
      .filter((x): x is string => typeof x === "string")
      .map((id) => ({ shortId: id, toolCallId: id }));
  return [];
}

const refKey = (r: SummaryRef) => occKey(r.toolCallId, r.resultTimestamp);

/**
 * The Condense id of a pi-condense summary message: derived from the occurrences it covers, so the
 * same message always gets the same id, here and in summary delivery (which then never repeats it).
 */
export function piCondenseSummaryId(details: unknown): string | null {
  const keys = refsOf(details).map(refKey);
  if (keys.length === 0) return null;
  return `pc_${createHash("sha256").update(keys.join("\n")).digest("hex").slice(0, 24)}`;
}

function recordOf(raw: unknown): (ToolCallRecord & { spillPath?: string }) | null {
  if (!isObject(raw) || !str(raw.toolCallId) || !str(raw.toolName)) return null;
  const ts = num(raw.resultTimestamp);
  const spillBytes = num(raw.spillBytes);
  const r: ToolCallRecord & { spillPath?: string } = {
    key: occKey(raw.toolCallId as string, ts),
    toolCallId: raw.toolCallId as string,
    toolName: raw.toolName as string,
    args: isObject(raw.args) ? raw.args : {},
    resultText: typeof raw.resultText === "string" ? raw.resultText : "",
    isError: raw.isError === true,
    turnIndex: num(raw.turnIndex) ?? -1,
    timestamp: num(raw.timestamp) ?? 0,
    ...(ts !== undefined ? { resultTimestamp: ts } : {}),
    ...(str(raw.contentHash) ? { contentHash: raw.contentHash as string } : {}),
  };
  // A spilled record (CAP-SPILL): its body lived in a sidecar file; the service keeps it out of line.
  if (spillBytes !== undefined && str(raw.spillPath)) {
    r.stored = {
      bytes: spillBytes,
      preview: typeof raw.resultPreview === "string" ? raw.resultPreview : r.resultText.slice(0, 2048),
    };
    r.spillPath = raw.spillPath as string;
  }
  return r;
}

const FRONTIER_OUTCOMES = new Set<FlushOutcome>([
  "summarized",
  "skipped-oversized",
  "skipped-trivial",
  "skipped-deduped",
]);

function frontierOf(raw: unknown): Frontier | null {
  if (!isObject(raw) || !str(raw.lastAttemptedToolCallId)) return null;
  return {
    lastAttemptedToolCallId: raw.lastAttemptedToolCallId as string,
    lastAttemptedToolName: str(raw.lastAttemptedToolName) ?? "",
    lastAttemptedTurnIndex: num(raw.lastAttemptedTurnIndex) ?? -1,
    lastAttemptedTimestamp: num(raw.lastAttemptedTimestamp) ?? 0,
    attemptedBatchCount: num(raw.attemptedBatchCount) ?? 0,
    attemptedToolCallCount: num(raw.attemptedToolCallCount) ?? 0,
    rawCharCount: num(raw.rawCharCount) ?? 0,
    summaryCharCount: num(raw.summaryCharCount) ?? 0,
    outcome: FRONTIER_OUTCOMES.has(raw.outcome as FlushOutcome) ? (raw.outcome as FlushOutcome) : "summarized",
  };
}

function statsOf(raw: unknown): SummarizerStats | null {
  if (!isObject(raw)) return null;
  return {
    totalInputTokens: num(raw.totalInputTokens) ?? 0,
    totalOutputTokens: num(raw.totalOutputTokens) ?? 0,
    totalCost: num(raw.totalCost) ?? 0,
    callCount: num(raw.callCount) ?? 0,
    chainsCompressed: num(raw.chainsCompressed) ?? 0,
    rangesSummarized: num(raw.rangesSummarized) ?? 0,
  };
}

function chainOf(raw: unknown): Omit<ChainEntry, "blockId"> | null {
  if (!isObject(raw) || !str(raw.blockId) || num(raw.startUserTimestamp) === undefined) return null;
  const ids = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
  const dropped = ids(raw.droppedOccurrenceKeys);
  const prot = ids(raw.protectedToolCallIds);
  return {
    startUserTimestamp: raw.startUserTimestamp as number,
    finalAssistantTimestamp: num(raw.finalAssistantTimestamp) ?? null,
    droppedToolCallIds: ids(raw.droppedToolCallIds) ?? [],
    ...(dropped ? { droppedOccurrenceKeys: dropped } : {}),
    ...(prot ? { protectedToolCallIds: prot } : {}),
    toolRefs: ids(raw.toolRefs) ?? [],
    compressedAt: num(raw.compressedAt) ?? 0,
    ...(typeof raw.rangeSummaryText === "string" && raw.rangeSummaryText
      ? { rangeSummaryText: raw.rangeSummaryText }
      : {}),
    ...(raw.bodySource === "deterministic" ? { bodySource: "deterministic" as const } : {}),
  };
}

/**
 * Condense state from pi-condense's entries on this branch; null when pi-condense left none. `readSpill`
 * returns a spilled record's full body from its sidecar file (or null when it is gone).
 */
export function importFromPiCondense(
  entries: readonly BranchEntry[],
  readSpill: (path: string) => string | null = () => null,
): PiCondenseImport | null {
  const records = new Map<string, ToolCallRecord & { spillPath?: string; storedBody?: string }>();
  const refByKey = new Map<string, string>();
  const summaries: SummaryEntry[] = [];
  const aliasRaw: { key: string; originalKey: string }[] = [];
  const chains = new Map<number, Omit<ChainEntry, "blockId">>();
  let frontier: Frontier | null = null;
  let stats: SummarizerStats | null = null;
  let seen = 0;

  for (const e of entries) {
    if (e.type === "custom_message" && e.customType === PI_CONDENSE_TYPES.summary) {
      seen++;
      const refs = refsOf(e.details);
      const id = piCondenseSummaryId(e.details);
      if (!id) continue;
      for (const r of refs) if (/^t\d+$/.test(r.shortId)) refByKey.set(refKey(r), r.shortId);
      const d = isObject(e.details) ? e.details : {};
      summaries.push({
        id,
        text: textOf(e.content),
        refs,
        coverage: refs.map(refKey),
        toolNames: Array.isArray(d.toolNames) ? d.toolNames.filter((x): x is string => typeof x === "string") : [],
        turnIndex: num(d.turnIndex) ?? -1,
        timestamp: num(d.timestamp) ?? 0,
      });
      continue;
    }
    if (e.type !== "custom") continue;
    const data = e.data;
    switch (e.customType) {
      case PI_CONDENSE_TYPES.index: {
        seen++;
        if (!isObject(data) || !Array.isArray(data.toolCalls)) break;
        for (const raw of data.toolCalls) {
          const r = recordOf(raw);
          if (!r) continue;
          if (data.backfilled === true) r.backfilled = true;
          records.set(r.key, r);
        }
        // Backfilled records carry their refs on the index entry (CAP-CHAIN-9).
        for (const ref of refsOf({ toolCallRefs: data.refs }))
          if (/^t\d+$/.test(ref.shortId)) refByKey.set(refKey(ref), ref.shortId);
        break;
      }
      case PI_CONDENSE_TYPES.alias:
        seen++;
        if (isObject(data) && str(data.newToolCallId) && str(data.originalToolCallId)) {
          aliasRaw.push({
            key: occKey(data.newToolCallId as string, num(data.newResultTimestamp)),
            originalKey: occKey(data.originalToolCallId as string, num(data.originalResultTimestamp)),
          });
        }
        break;
      case PI_CONDENSE_TYPES.chain: {
        seen++;
        const c = chainOf(data);
        if (c) chains.set(c.startUserTimestamp, c);
        break;
      }
      case PI_CONDENSE_TYPES.frontier: {
        seen++;
        // An entry without lastAttemptedToolCallId is ignored; the last valid one wins.
        const f = frontierOf(data);
        if (f) frontier = f;
        break;
      }
      case PI_CONDENSE_TYPES.stats:
        seen++;
        stats = statsOf(data) ?? stats;
        break;
      default:
        break;
    }
  }
  if (seen === 0) return null;

  const summaryOf = new Map<string, string>();
  for (const s of summaries) for (const k of s.coverage) summaryOf.set(k, s.id);
  const out: PiCondenseImport["records"] = [];
  for (const r of records.values()) {
    const shortRef = r.stored ? undefined : refByKey.get(r.key);
    const { spillPath, ...rest } = r;
    const body = spillPath ? readSpill(spillPath) : null;
    out.push({
      ...rest,
      ...(shortRef ? { shortRef } : {}),
      ...(summaryOf.has(r.key) ? { summaryId: summaryOf.get(r.key)! } : {}),
      ...(r.stored
        ? { resultText: "", ...(body !== null ? { storedBody: body } : { storedBody: r.stored.preview }) }
        : {}),
    });
  }
  // An alias whose original is not a record on this branch would point nowhere: left out.
  const aliases = aliasRaw.filter((a) => records.has(a.originalKey) && !records.has(a.key));
  const importId = createHash("sha256")
    .update(
      JSON.stringify([
        out.map((r) => r.key),
        summaries.map((s) => s.id),
        aliases,
        [...chains.keys()],
        frontier?.lastAttemptedToolCallId ?? null,
      ]),
    )
    .digest("hex")
    .slice(0, 32);
  return {
    importId,
    records: out,
    summaries,
    aliases,
    chains: [...chains.values()].sort((a, b) => a.startUserTimestamp - b.startUserTimestamp),
    frontier,
    stats,
  };
}
