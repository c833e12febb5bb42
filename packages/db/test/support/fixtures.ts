/** Small builders for captured batches and flush plans used across the db suites. */
import { occKey, type CapturedBatch, type CapturedToolCall, type SummaryEntry } from "@condense/core";
import type { FlushWrites, MintedRefs, PendingBatch, RecordWrite } from "../../src/index.ts";

export function call(
  id: string,
  ts: number,
  text = `output of ${id}`,
  extra: Partial<CapturedToolCall> = {},
): CapturedToolCall {
  return {
    toolCallId: id,
    toolName: "bash",
    args: { cmd: `echo ${id}` },
    resultText: text,
    isError: false,
    resultTimestamp: ts,
    ...extra,
  };
}

export function batch(
  turnIndex: number,
  calls: CapturedToolCall[],
  timestamp = 1_700_000_000_000 + turnIndex,
): CapturedBatch {
  return { turnIndex, timestamp, assistantText: `turn ${turnIndex}`, toolCalls: calls };
}

/** Summarize every pending batch: one summary per batch, refs minted per call (what a worker would do). */
export function summarizeAll(
  batches: PendingBatch[],
  flushTag: string,
): { mint: string[][]; writes: (m: MintedRefs) => FlushWrites } {
  const mint = batches.map((b) => b.toolCalls.map((c) => c.occurrenceKey));
  const writes = (m: MintedRefs): FlushWrites => {
    const records: RecordWrite[] = [];
    const summaries: SummaryEntry[] = [];
    batches.forEach((b, i) => {
      const refs = m.groups[i]!;
      const id = `s-${flushTag}-${b.toolCalls.map((c) => c.occurrenceKey).join(",")}`;
      summaries.push({
        id,
        text: `summary of ${refs.join(", ")}`,
        refs: b.toolCalls.map((c, j) => ({
          shortId: refs[j]!,
          toolCallId: c.toolCallId,
          ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
        })),
        coverage: b.toolCalls.map((c) => c.occurrenceKey),
        toolNames: b.toolCalls.map((c) => c.toolName),
        turnIndex: b.turnIndex,
        timestamp: b.timestamp,
      });
      b.toolCalls.forEach((c, j) => {
        records.push({
          key: occKey(c.toolCallId, c.resultTimestamp),
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          args: c.args,
          resultText: c.resultText,
          isError: c.isError,
          turnIndex: b.turnIndex,
          timestamp: b.timestamp,
          ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
          shortRef: refs[j]!,
          contentHash: `hash:${c.resultText}`,
          summaryId: id,
        });
      });
    });
    const last = batches[batches.length - 1];
    const lastCall = last?.toolCalls[last.toolCalls.length - 1];
    return {
      records,
      summaries,
      aliases: [],
      frontier:
        last && lastCall
          ? {
              lastAttemptedToolCallId: lastCall.toolCallId,
              lastAttemptedToolName: lastCall.toolName,
              lastAttemptedTurnIndex: last.turnIndex,
              lastAttemptedTimestamp: last.timestamp,
              attemptedBatchCount: batches.length,
              attemptedToolCallCount: records.length,
              rawCharCount: records.reduce((s, r) => s + r.resultText.length, 0),
              summaryCharCount: summaries.reduce((s, x) => s + x.text.length, 0),
              outcome: "summarized",
            }
          : null,
      stats: {
        callCount: batches.length,
        totalInputTokens: 100 * batches.length,
        totalOutputTokens: 10 * batches.length,
        totalCost: 0.001 * batches.length,
      },
      captures: records.map((r) => ({ key: r.key, status: "summarized" as const })),
      metrics: {
        outcome: "summarized",
        capturedBatches: batches.length,
        processedBatches: batches.length,
        attemptedCalls: records.length,
        model: "test/model",
        runMs: 12,
        queueWaitMs: 3,
      },
    };
  };
  return { mint, writes };
}
