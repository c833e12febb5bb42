/**
 * The reads (and one informational write) the flush worker needs around `commitFlush` and
 * `commitChains`: which pending keys are already indexed (the frontier trim), capture rows by key
 * (chain backfill reads raw text there, including trivial-skipped calls), the next attempt number of
 * a request, why a capture is still pending, and the queued requests nobody finished (re-enqueue).
 */
import { and, asc, desc, eq, inArray, isNull, lt, max, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { captures, dedupAliases, flushMetrics, flushRequests, toolCallRecords } from "../schema/index.ts";
import { chunks } from "./bulk-upsert.ts";
import type { SessionKey } from "./sessions.ts";

/** Keys that already have a record or a dedup alias in the session. */
export async function findIndexedKeys(db: Db, input: SessionKey & { keys: string[] }): Promise<Set<string>> {
  const out = new Set<string>();
  for (const chunk of chunks([...new Set(input.keys)], 1000)) {
    const [records, aliases] = await Promise.all([
      db.select({ key: toolCallRecords.key }).from(toolCallRecords)
        .where(and(eq(toolCallRecords.tenantId, input.tenantId), eq(toolCallRecords.sessionId, input.sessionId), inArray(toolCallRecords.key, chunk))),
      db.select({ key: dedupAliases.key }).from(dedupAliases)
        .where(and(eq(dedupAliases.tenantId, input.tenantId), eq(dedupAliases.sessionId, input.sessionId), inArray(dedupAliases.key, chunk))),
    ]);
    for (const r of records) out.add(r.key);
    for (const r of aliases) out.add(r.key);
  }
  return out;
}

export interface CaptureRow {
  seq: number;
  occurrenceKey: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  resultText: string;
  isError: boolean;
  resultTimestamp: number | null;
  turnIndex: number;
  batchTimestamp: number;
  status: string;
}

/** Capture rows of the session with these occurrence keys, whatever their status, in capture order. */
export async function loadCapturesByKeys(db: Db, input: SessionKey & { keys: string[] }): Promise<CaptureRow[]> {
  const out: CaptureRow[] = [];
  for (const chunk of chunks([...new Set(input.keys)], 1000)) {
    const rows = await db
      .select({
        seq: captures.seq, occurrenceKey: captures.occurrenceKey, toolCallId: captures.toolCallId, toolName: captures.toolName,
        args: captures.args, resultText: captures.resultText, isError: captures.isError, resultTimestamp: captures.resultTimestamp,
        turnIndex: captures.turnIndex, batchTimestamp: captures.batchTimestamp, status: captures.status,
      })
      .from(captures)
      .where(and(eq(captures.tenantId, input.tenantId), eq(captures.sessionId, input.sessionId), inArray(captures.occurrenceKey, chunk)))
      .orderBy(asc(captures.seq));
    out.push(...rows);
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/**
 * The attempt number a new run of this request records: the queue's attempt, or one past the last
 * recorded attempt when a released run (shutdown, stall) is re-delivered under the same number.
 */
export async function nextFlushAttempt(db: Db, input: { flushRequestId: string; queueAttempt: number }): Promise<number> {
  const [row] = await db.select({ last: max(flushMetrics.attempt) }).from(flushMetrics).where(eq(flushMetrics.flushRequestId, input.flushRequestId));
  const last = row?.last ?? 0;
  return Math.max(input.queueAttempt, Number(last) + 1);
}

/** Note why captures are still pending (informational: status stays `pending`, nothing is settled). */
export async function notePendingReason(db: Db, input: SessionKey & { keys: string[]; reason: string }): Promise<number> {
  let n = 0;
  for (const chunk of chunks([...new Set(input.keys)], 1000)) {
    const rows = await db
      .update(captures)
      .set({ statusReason: input.reason })
      .where(and(eq(captures.tenantId, input.tenantId), eq(captures.sessionId, input.sessionId), eq(captures.status, "pending"), inArray(captures.occurrenceKey, chunk)))
      .returning({ seq: captures.seq });
    n += rows.length;
  }
  return n;
}

export interface QueuedFlushRequest { id: string; tenantId: string; sessionId: string; cursor: number; requestedAt: Date }

/**
 * Sessions whose newest still-queued request is older than `olderThan`, with that request: what a
 * lost job leaves behind (an in-process queue that died with its process, a Redis failover without
 * persistence, a BullMQ job failed after too many stalls). A session with a fresher queued request
 * is left alone, its job is presumably on its way. Re-enqueueing is safe: commits are idempotent
 * per request, and the newest request's cursor covers the older ones.
 */
export async function listStaleQueuedFlushRequests(db: Db, input: { olderThan: Date; limit?: number }): Promise<QueuedFlushRequest[]> {
  const rows = await db
    .selectDistinctOn([flushRequests.tenantId, flushRequests.sessionId], {
      id: flushRequests.id, tenantId: flushRequests.tenantId, sessionId: flushRequests.sessionId,
      cursor: flushRequests.cursor, requestedAt: flushRequests.requestedAt,
    })
    .from(flushRequests)
    .where(eq(flushRequests.status, "queued"))
    .orderBy(flushRequests.tenantId, flushRequests.sessionId, desc(flushRequests.requestedAt));
  return rows
    .filter((r) => r.requestedAt < input.olderThan)
    .slice(0, input.limit ?? 500)
    .map((r) => ({ ...r, cursor: Number(r.cursor) }));
}

/**
 * Committed requests whose chain stage never finished (the job died after the flush commit and was
 * then given up): the flush persisted a frontier, the request carries chains, no chains commit yet.
 */
export async function listUnfinishedChainStages(db: Db, input: { olderThan: Date; limit?: number }): Promise<QueuedFlushRequest[]> {
  const rows = await db
    .select({
      id: flushRequests.id, tenantId: flushRequests.tenantId, sessionId: flushRequests.sessionId,
      cursor: flushRequests.cursor, requestedAt: flushRequests.requestedAt,
    })
    .from(flushRequests)
    .where(and(
      eq(flushRequests.status, "committed"),
      isNull(flushRequests.chainsResult),
      lt(flushRequests.completedAt, input.olderThan),
      sql`jsonb_array_length(${flushRequests.chains}) > 0`,
      sql`(${flushRequests.result} -> 'written' ->> 'frontier') = 'true'`,
    ))
    .limit(input.limit ?? 500);
  return rows.map((r) => ({ ...r, cursor: Number(r.cursor) }));
}

/** Count of captures per status (and pending reason) in a session: for status views and tests. */
export async function countCapturesByStatus(db: Db, key: SessionKey): Promise<{ status: string; reason: string | null; n: number }[]> {
  return db
    .select({ status: captures.status, reason: captures.statusReason, n: sql<number>`count(*)::int`.mapWith(Number) })
    .from(captures)
    .where(and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId)))
    .groupBy(captures.status, captures.statusReason);
}
