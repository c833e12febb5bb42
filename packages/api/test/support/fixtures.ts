/** Request bodies and a worker-like commit for the API suites. */
import { occKey, type CapturedBatch, type CapturedToolCall, type SummaryEntry } from "@condense/core";
import { commitFlush, createFlushRequest, loadPendingCaptures, type Db, type RecordWrite } from "@condense/db";

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
  timestamp = 1_700_000_000_000 + turnIndex * 1000,
): CapturedBatch {
  return { turnIndex, timestamp, assistantText: `turn ${turnIndex}`, toolCalls: calls };
}

export const capturesBody = (captureId: string, batches: CapturedBatch[]) => ({ captureId, batches });

/**
 * Summarize every pending capture of a session the way a worker would (one summary per batch, refs
 * minted per call), plus optional dedup aliases and stored bodies, through the db's commitFlush.
 */
export async function commitAllPending(
  db: Db,
  key: { tenantId: string; sessionId: string },
  opts: {
    aliases?: { key: string; originalKey: string }[];
    stored?: Record<string, { preview: string }>;
    skipKeys?: string[];
  } = {},
): Promise<number> {
  const req = await createFlushRequest(db, { ...key, trigger: "manual" });
  const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
  const skip = new Set([...(opts.skipKeys ?? []), ...(opts.aliases ?? []).map((a) => a.key)]);
  const batches = pending
    .map((b) => ({ ...b, toolCalls: b.toolCalls.filter((c) => !skip.has(c.occurrenceKey)) }))
    .filter((b) => b.toolCalls.length > 0);
  const res = await commitFlush(db, {
    ...key,
    flushRequestId: req.id,
    attempt: 1,
    mintRefs: batches.map((b) => b.toolCalls.map((c) => c.occurrenceKey)),
    writes: (m) => {
      const records: RecordWrite[] = [];
      const summaries: SummaryEntry[] = [];
      batches.forEach((b, i) => {
        const refs = m.groups[i]!;
        const id = `sum-${req.id}-${i}`;
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
            summaryId: id,
            ...(stored
              ? {
                  stored: { bytes: Buffer.byteLength(c.resultText), preview: stored.preview },
                  storedBody: c.resultText,
                }
              : {}),
          });
        });
      });
      return {
        records,
        summaries,
        aliases: opts.aliases ?? [],
        frontier: null,
        captures: pending.flatMap((b) =>
          b.toolCalls.map((c) => ({
            key: c.occurrenceKey,
            status: opts.aliases?.some((a) => a.key === c.occurrenceKey)
              ? ("deduped" as const)
              : ("summarized" as const),
          })),
        ),
        metrics: {
          outcome: "summarized",
          attemptedCalls: records.length,
          dedupHits: opts.aliases?.length ?? 0,
          inputTokens: 100,
          outputTokens: 20,
          cost: 0.01,
        },
        stats: { callCount: batches.length, totalInputTokens: 100, totalOutputTokens: 20, totalCost: 0.01 },
      };
    },
  });
  if (res.status !== "committed") throw new Error(`commit answered ${res.status}: ${res.conflicts?.join(",")}`);
  return res.version;
}
