/**
 * Captured calls and batches (and the API's request body for them), and the flush a worker would
 * commit for them: one summary per batch,
 * one record per call with its minted ref. The db suites commit the plan themselves; the API suites
 * through `commitAllPending`, which opens the request and loads the pending captures first.
 */
import { occKey, type CapturedBatch, type CapturedToolCall, type SummaryEntry } from "@condense/core";
import {
  commitFlush,
  createFlushRequest,
  loadPendingCaptures,
  type Db,
  type FlushWrites,
  type MintedRefs,
  type PendingBatch,
  type RecordWrite,
} from "@condense/db";

/** A bash call; `ts` undefined makes a legacy call without a result timestamp. */
export function call(
  id: string,
  ts: number | undefined,
  text = `output of ${id}`,
  extra: Partial<CapturedToolCall> = {},
): CapturedToolCall {
  return {
    toolCallId: id,
    toolName: "bash",
    args: { cmd: `echo ${id}` },
    resultText: text,
    isError: false,
    ...(ts !== undefined ? { resultTimestamp: ts } : {}),
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

/** The body of `POST /v1/sessions/:id/captures`. */
export const capturesBody = (captureId: string, batches: CapturedBatch[]) => ({ captureId, batches });

export interface PlanOptions {
  /** Occurrences committed as dedup aliases of another (no record, capture settled as deduped). */
  aliases?: { key: string; originalKey: string }[];
  /** Occurrences whose body is stored aside, keyed by occurrence key, with the preview the record keeps. */
  stored?: Record<string, { preview: string }>;
}

/**
 * The plan for `batches`: the keys to mint refs for, and the writes once they are minted. Summary ids
 * are `s-<flushTag>-<keys>`, content hashes `hash:<text>`; usage counts 100 input / 10 output tokens
 * and 0.001 per batch.
 */
export function summarizeAll(
  pending: PendingBatch[],
  flushTag: string,
  opts: PlanOptions = {},
): { mint: string[][]; writes: (m: MintedRefs) => FlushWrites } {
  const aliases = opts.aliases ?? [];
  const aliased = new Set(aliases.map((a) => a.key));
  const batches = pending
    .map((b) => ({ ...b, toolCalls: b.toolCalls.filter((c) => !aliased.has(c.occurrenceKey)) }))
    .filter((b) => b.toolCalls.length > 0);
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
        const key = occKey(c.toolCallId, c.resultTimestamp);
        const stored = opts.stored?.[key];
        records.push({
          key,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          args: c.args,
          resultText: stored ? "" : c.resultText,
          isError: c.isError,
          turnIndex: b.turnIndex,
          timestamp: b.timestamp,
          ...(c.resultTimestamp !== undefined ? { resultTimestamp: c.resultTimestamp } : {}),
          shortRef: refs[j]!,
          contentHash: `hash:${c.resultText}`,
          summaryId: id,
          ...(stored
            ? { stored: { bytes: Buffer.byteLength(c.resultText), preview: stored.preview }, storedBody: c.resultText }
            : {}),
        });
      });
    });
    const last = batches[batches.length - 1];
    const lastCall = last?.toolCalls[last.toolCalls.length - 1];
    return {
      records,
      summaries,
      aliases,
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
      captures: [
        ...records.map((r) => ({ key: r.key, status: "summarized" as const })),
        ...aliases.map((a) => ({ key: a.key, status: "deduped" as const })),
      ],
      metrics: {
        outcome: "summarized",
        capturedBatches: pending.length,
        processedBatches: batches.length,
        attemptedCalls: records.length,
        dedupHits: aliases.length,
        model: "test/model",
        runMs: 12,
        queueWaitMs: 3,
      },
    };
  };
  return { mint, writes };
}

/** Summarize every pending capture of a session the way a worker would; returns the new version. */
export async function commitAllPending(
  db: Db,
  key: { tenantId: string; sessionId: string },
  opts: PlanOptions = {},
): Promise<number> {
  const req = await createFlushRequest(db, { ...key, trigger: "manual" });
  const plan = summarizeAll(await loadPendingCaptures(db, { ...key, cursor: req.cursor }), req.id, opts);
  const res = await commitFlush(db, {
    ...key,
    flushRequestId: req.id,
    attempt: 1,
    mintRefs: plan.mint,
    writes: plan.writes,
  });
  if (res.status !== "committed") throw new Error(`commit answered ${res.status}: ${res.conflicts?.join(",")}`);
  return res.version;
}
