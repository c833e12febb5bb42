/**
 * Builds the state a long-running Condense session would have reached: everything older than the last
 * N user turns has been flushed (trivial batches skipped, the rest summarized with tN refs, summaries
 * appended where a reply-triggered flush would have put them), and the older closed chains have been
 * compressed (covered chains concatenate their summaries, uncovered ones are backfilled with a
 * deterministic body). Pure: used by the real-session suite and the core benchmark.
 *
 * The summary texts stand in for an LLM's: one line per call (ref, tool, key argument, outcome, size)
 * plus the standard ref footer. They are short and realistic in length, which is what reclaim depends on.
 */
import { capturePendingBatches, callKey } from "../../src/capture.ts";
import type { CapturedBatch, CapturedToolCall } from "../../src/capture-types.ts";
import { detectChains } from "../../src/chain-detect.ts";
import { planChainCompression, selectEligibleChains } from "../../src/chain-plan.ts";
import {
  hasToolCall,
  isAssistant,
  isToolResult,
  isUser,
  numericTimestamp,
  SUMMARY_CUSTOM_TYPE,
  type AgentMessage,
  type CustomMessage,
} from "../../src/messages.ts";
import { occKey } from "../../src/keys.ts";
import { graceSet } from "../../src/recovery-grace.ts";
import { mintRefs, refFooter } from "../../src/refs.ts";
import type { CondenseSettings } from "../../src/settings.ts";
import { buildState, createState, type CondenseState } from "../../src/state.ts";
import {
  emptyStats,
  type ChainEntry,
  type Frontier,
  type SummaryEntry,
  type ToolCallRecord,
} from "../../src/state-types.ts";
import { isCompressedChainText } from "../../src/texts.ts";
import { contentText } from "../../src/messages.ts";

export interface CondensedFixtureOptions {
  keepLastUserTurns: number;
  settings: CondenseSettings;
}

export interface CondensedFixture {
  /** The input plus the per-batch summary messages a flush would have appended. */
  messages: AgentMessage[];
  state: CondenseState;
  /** Index (in `messages`) of the first kept user turn. */
  cutIndex: number;
  counts: {
    batches: number;
    summarized: number;
    trivial: number;
    oversized: number;
    records: number;
    chainsCovered: number;
    chainsDeterministic: number;
    chainsSkipped: number;
  };
}

const KEY_ARGS = ["path", "file_path", "command", "pattern", "query", "url", "cmd"];

function keyArg(args: Record<string, unknown>): string {
  for (const k of KEY_ARGS) {
    const v = args[k];
    if (typeof v === "string" && v.length > 0) {
      const one = v.replace(/\s+/g, " ").trim();
      return one.length > 80 ? `${one.slice(0, 77)}...` : one;
    }
  }
  const json = JSON.stringify(args);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

function summaryLine(call: CapturedToolCall, ref: string): string {
  const firstLine = call.resultText.split("\n", 1)[0]!.trim();
  const gist = firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine;
  return `- \`${ref}\` ${call.toolName} ${keyArg(call.args)} -> ${call.isError ? "error" : "ok"} (${call.resultText.length} chars)${gist ? `: ${gist}` : ""}`;
}

function isRealUser(m: unknown): boolean {
  return isUser(m) && !isCompressedChainText(contentText(m.content));
}

export function buildCondensedState(
  input: readonly AgentMessage[],
  options: CondensedFixtureOptions,
): CondensedFixture {
  const { settings } = options;
  const messages = input.slice();
  // The cut: the start of the Nth-last user turn; nothing from there on is flushed.
  let cut = 0;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isRealUser(messages[i]) && ++seen === options.keepLastUserTurns) {
      cut = i;
      break;
    }
  }
  const older = messages.slice(0, cut);
  const batches = capturePendingBatches(older, createState(), settings);

  // Where each occurrence's result sits, and the next text-only reply at or after each index.
  const resultIndex = new Map<string, number>();
  older.forEach((m, i) => {
    if (isToolResult(m)) {
      const k = occKey(m.toolCallId, numericTimestamp(m));
      if (!resultIndex.has(k)) resultIndex.set(k, i);
    }
  });
  const nextReply = new Array<number>(older.length + 1).fill(cut);
  for (let i = older.length - 1; i >= 0; i--) {
    const m = older[i];
    nextReply[i] = isAssistant(m) && !hasToolCall(m) ? i : nextReply[i + 1]!;
  }

  const records: ToolCallRecord[] = [];
  const summaries: SummaryEntry[] = [];
  const inserts = new Map<number, CustomMessage[]>(); // after index -> summary messages
  let next = 1;
  let frontier: Frontier | null = null;
  const counts = {
    batches: batches.length,
    summarized: 0,
    trivial: 0,
    oversized: 0,
    records: 0,
    chainsCovered: 0,
    chainsDeterministic: 0,
    chainsSkipped: 0,
  };
  const stats = emptyStats();

  const attempt = (b: CapturedBatch, raw: number, summaryChars: number, outcome: Frontier["outcome"]) => {
    const last = b.toolCalls[b.toolCalls.length - 1]!;
    frontier = {
      lastAttemptedToolCallId: last.toolCallId,
      lastAttemptedToolName: last.toolName,
      lastAttemptedTurnIndex: b.turnIndex,
      lastAttemptedTimestamp: b.timestamp,
      attemptedBatchCount: 1,
      attemptedToolCallCount: b.toolCalls.length,
      rawCharCount: raw,
      summaryCharCount: summaryChars,
      outcome,
    };
  };

  for (const b of batches) {
    const raw = b.toolCalls.reduce((n, c) => n + c.resultText.length, 0);
    if (settings.minBatchChars > 0 && raw < settings.minBatchChars) {
      counts.trivial++;
      attempt(b, raw, 0, "skipped-trivial");
      continue;
    }
    const minted = mintRefs(next, b.toolCalls.length);
    next = minted.next;
    const text = b.toolCalls.map((c, i) => summaryLine(c, minted.refs[i]!)).join("\n") + refFooter(minted.refs);
    if (text.length > raw) {
      counts.oversized++;
      attempt(b, raw, text.length, "skipped-oversized");
      continue;
    }
    const id = `s${summaries.length + 1}`;
    const keys = b.toolCalls.map(callKey);
    b.toolCalls.forEach((c, i) =>
      records.push({
        key: keys[i]!,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        args: c.args,
        resultText: c.resultText,
        isError: c.isError,
        turnIndex: b.turnIndex,
        timestamp: b.timestamp,
        ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
        shortRef: minted.refs[i]!,
        summaryId: id,
      }),
    );
    const refs = b.toolCalls.map((c, i) => ({
      shortId: minted.refs[i]!,
      toolCallId: c.toolCallId,
      ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
    }));
    const toolNames = [...new Set(b.toolCalls.map((c) => c.toolName))];
    summaries.push({ id, text, refs, coverage: keys, toolNames, turnIndex: b.turnIndex, timestamp: b.timestamp });
    const lastResult = Math.max(...keys.map((k) => resultIndex.get(k) ?? 0));
    const at = nextReply[lastResult]!;
    const msg: CustomMessage = {
      role: "custom",
      customType: SUMMARY_CUSTOM_TYPE,
      content: text,
      display: false,
      details: { summaryId: id, toolCallRefs: refs, toolNames, turnIndex: b.turnIndex, timestamp: b.timestamp },
      timestamp: (numericTimestamp(older[Math.min(at, older.length - 1)]) ?? b.timestamp) + 1,
    };
    const list = inserts.get(at);
    if (list) list.push(msg);
    else inserts.set(at, [msg]);
    counts.summarized++;
    stats.callCount++;
    attempt(b, raw, text.length, "summarized");
  }

  // Splice the summaries in: after the closing reply they belong to, or at the cut when none closed.
  const withSummaries: AgentMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (i === cut) for (const s of inserts.get(cut) ?? []) withSummaries.push(s);
    withSummaries.push(messages[i]!);
    if (i < cut) for (const s of inserts.get(i) ?? []) withSummaries.push(s);
  }
  if (cut >= messages.length) for (const s of inserts.get(cut) ?? []) withSummaries.push(s);
  const cutIndex = withSummaries.indexOf(messages[cut]!);

  // Chain compression over the whole branch, as the flush tail does (K newest closed chains stay raw).
  let state = buildState(1, records, summaries, [], [], frontier, stats);
  const chains = detectChains(withSummaries, settings);
  const eligible = selectEligibleChains(chains, state, {
    rollingWindow: settings.chainCompression.rollingWindow,
    graceKeys: graceSet(withSummaries, settings.recoveryGraceTurns),
  });
  let lastTs = 0;
  for (const m of withSummaries) lastTs = Math.max(lastTs, numericTimestamp(m) ?? 0);
  const plan = planChainCompression(withSummaries, eligible, state, { compressedAt: lastTs + 1, settings });
  const chainEntries: ChainEntry[] = [];
  for (const item of plan.items) {
    if (item.kind === "covered") {
      counts.chainsCovered++;
      chainEntries.push(item.entry);
    } else if (item.kind === "deterministic") {
      counts.chainsDeterministic++;
      records.push(...item.fresh);
      chainEntries.push(item.entry);
    } else counts.chainsSkipped++;
  }
  stats.chainsCompressed = chainEntries.length;
  counts.records = records.length;
  state = buildState(2, records, summaries, [], chainEntries, frontier, stats);
  return { messages: withSummaries, state, cutIndex, counts };
}
