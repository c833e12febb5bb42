/**
 * Post-summarizer half of CAP-FLUSH-6..9 as a pure function: walk the planned batches in order, stop
 * at the first failed summarization (that batch and every later one stay pending), turn the rest
 * into records, summaries, dedup aliases and a frontier, and pick the outcome by precedence.
 * The worker commits exactly what this returns, so a retried job with the same inputs writes the
 * same rows.
 */
import { callKey } from "../capture.ts";
import type { CapturedToolCall } from "../capture-types.ts";
import type { DedupAlias, FlushOutcome, Frontier, SummaryEntry, ToolCallRecord } from "../state-types.ts";
import type { BatchPlan, FlushPlan } from "./plan-flush.ts";

/** What the summarizer produced for one `summarize` batch; null = failed (CAP-SUM-10). */
export interface BatchSummaryResult {
  /** Final text: refs rewritten, footer appended. */
  text: string;
  /** The refs handed to the summarizer, one per call, in order. */
  refs: string[];
}

export type CaptureDisposition =
  | { key: string; status: "summarized"; ref: string; summaryId: string }
  | { key: string; status: "stored" }
  | { key: string; status: "deduped"; originalKey: string }
  | { key: string; status: "skipped"; reason: "trivial" | "oversized-summary" }
  | { key: string; status: "pending"; reason: "summarizer-failed" };

export interface AssembledFlush {
  outcome: FlushOutcome;
  processedBatches: number;
  records: ToolCallRecord[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  frontier: Frontier | null;
  dispositions: CaptureDisposition[];
  summaryChars: number;
  rawChars: number;
  dedupedCalls: number;
}

export interface AssembleInput {
  plan: FlushPlan;
  /** By batch index; only for `summarize` batches. */
  results: ReadonlyMap<number, BatchSummaryResult | null>;
  /** Deterministic summary id for a batch (e.g. hash of session + covered keys). */
  summaryId: (coverage: readonly string[]) => string;
}

function record(call: CapturedToolCall, b: BatchPlan, extra: Partial<ToolCallRecord>): ToolCallRecord {
  const r: ToolCallRecord = {
    key: callKey(call),
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    resultText: call.resultText,
    isError: call.isError,
    turnIndex: b.batch.turnIndex,
    timestamp: b.batch.timestamp,
    ...extra,
  };
  if (call.resultTimestamp !== undefined) r.resultTimestamp = call.resultTimestamp;
  return r;
}

export function assembleFlush(input: AssembleInput): AssembledFlush {
  const records: ToolCallRecord[] = [];
  const summaries: SummaryEntry[] = [];
  const aliases: DedupAlias[] = [];
  const dispositions: CaptureDisposition[] = [];
  let processed = 0,
    summaryChars = 0,
    rawChars = 0,
    dedupedCalls = 0,
    attemptedCalls = 0;
  let anySummarized = false,
    anyOversized = false,
    anyDeduped = false;
  let last: { b: BatchPlan; call: CapturedToolCall } | null = null;
  const committedKeys = new Set<string>();
  let stopped = false;

  for (const b of input.plan.batches) {
    if (!stopped && b.kind === "summarize") {
      const res = input.results.get(b.index);
      if (!res) stopped = true;
    }
    if (stopped) {
      for (const c of [...b.calls, ...b.stored.map((s) => s.call), ...b.aliased.map((a) => a.call)]) {
        dispositions.push({ key: callKey(c), status: "pending", reason: "summarizer-failed" });
      }
      continue;
    }
    processed++;
    for (const s of b.stored) {
      records.push(
        record(s.call, b, { resultText: "", contentHash: s.hash, stored: { bytes: s.bytes, preview: s.preview } }),
      );
      committedKeys.add(s.key);
      dispositions.push({ key: s.key, status: "stored" });
      attemptedCalls++;
      rawChars += s.call.resultText.length;
    }
    for (const a of b.aliased) {
      // A within-flush alias is only valid when its original is committed by this flush.
      if (a.withinFlush && !committedKeys.has(a.alias.originalKey)) {
        dispositions.push({ key: a.alias.key, status: "pending", reason: "summarizer-failed" });
        continue;
      }
      aliases.push(a.alias);
      dispositions.push({ key: a.alias.key, status: "deduped", originalKey: a.alias.originalKey });
      dedupedCalls++;
      attemptedCalls++;
      rawChars += a.call.resultText.length;
      anyDeduped = true;
    }
    if (b.kind === "deduped") anyDeduped = true;
    rawChars += b.rawChars;
    attemptedCalls += b.calls.length;
    if (b.kind === "trivial") {
      for (const c of b.calls) dispositions.push({ key: callKey(c), status: "skipped", reason: "trivial" });
    } else if (b.kind === "summarize") {
      const res = input.results.get(b.index)!;
      if (res.text.length > b.rawChars) {
        anyOversized = true;
        for (const c of b.calls) dispositions.push({ key: callKey(c), status: "skipped", reason: "oversized-summary" });
      } else {
        anySummarized = true;
        const coverage = b.calls.map(callKey);
        const id = input.summaryId(coverage);
        summaryChars += res.text.length;
        summaries.push({
          id,
          text: res.text,
          refs: b.calls.map((c, i) => ({
            shortId: res.refs[i]!,
            toolCallId: c.toolCallId,
            ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
          })),
          coverage,
          toolNames: b.calls.map((c) => c.toolName),
          turnIndex: b.batch.turnIndex,
          timestamp: b.batch.timestamp,
        });
        b.calls.forEach((c, i) => {
          records.push(record(c, b, { shortRef: res.refs[i]!, contentHash: b.hashes.get(callKey(c)), summaryId: id }));
          committedKeys.add(callKey(c));
          dispositions.push({ key: callKey(c), status: "summarized", ref: res.refs[i]!, summaryId: id });
        });
      }
    }
    const lastCall = b.calls.at(-1) ?? b.aliased.at(-1)?.call ?? b.stored.at(-1)?.call ?? b.batch.toolCalls.at(-1);
    if (lastCall) last = { b, call: lastCall };
  }

  if (processed === 0) {
    return {
      outcome: "error",
      processedBatches: 0,
      records,
      summaries,
      aliases,
      frontier: null,
      dispositions,
      summaryChars,
      rawChars,
      dedupedCalls,
    };
  }
  const outcome: FlushOutcome = anySummarized
    ? "summarized"
    : anyOversized
      ? "skipped-oversized"
      : anyDeduped
        ? "skipped-deduped"
        : records.length > 0
          ? "summarized"
          : "skipped-trivial";
  const frontier: Frontier | null = last
    ? {
        lastAttemptedToolCallId: last.call.toolCallId,
        lastAttemptedToolName: last.call.toolName,
        lastAttemptedTurnIndex: last.b.batch.turnIndex,
        lastAttemptedTimestamp: last.b.batch.timestamp,
        attemptedBatchCount: processed,
        attemptedToolCallCount: attemptedCalls,
        rawCharCount: rawChars,
        summaryCharCount: summaryChars,
        outcome,
      }
    : null;
  return {
    outcome,
    processedBatches: processed,
    records,
    summaries,
    aliases,
    frontier,
    dispositions,
    summaryChars,
    rawChars,
    dedupedCalls,
  };
}
