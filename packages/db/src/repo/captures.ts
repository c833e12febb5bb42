/**
 * Captured tool calls. Inserting is idempotent per occurrence key, so a retried POST (same capture
 * id, same calls) changes nothing and reports its calls as duplicates. The flush job reads pending
 * captures up to its cursor, in capture order, regrouped into the batches the client sent.
 */
import { and, asc, eq, getTableColumns, lte, max, sql, type SQL } from "drizzle-orm";
import { occKey, type CapturedBatch, type CapturedToolCall } from "@condense/core";
import type { Db } from "../client.ts";
import { captures, dedupAliases, flushRequests, sessions, toolCallRecords, type CaptureStatus } from "../schema/index.ts";
import { ensureSession, type SessionKey } from "./sessions.ts";

export interface InsertCapturesInput extends SessionKey {
  /** The client's id for this POST; repeated verbatim on retry. */
  captureId: string;
  batches: CapturedBatch[];
}

export interface InsertCapturesResult {
  /** Calls stored by this call. */
  accepted: number;
  /** Calls already stored (a retry, or an occurrence seen before). */
  duplicate: number;
  /** The session's highest capture seq after the insert: the cursor a flush should carry. */
  maxSeq: number;
}

export async function insertCaptures(db: Db, input: InsertCapturesInput): Promise<InsertCapturesResult> {
  const rows = input.batches.flatMap((batch, batchIndex) =>
    batch.toolCalls.map((call, callIndex) => ({
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      occurrenceKey: occKey(call.toolCallId, call.resultTimestamp),
      captureId: input.captureId,
      batchIndex,
      callIndex,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args ?? {},
      resultText: call.resultText,
      isError: call.isError,
      resultTimestamp: call.resultTimestamp ?? null,
      contentHash: call.contentHash ?? null,
      turnIndex: batch.turnIndex,
      batchTimestamp: batch.timestamp,
      assistantText: batch.assistantText ?? "",
      userTurnGroup: batch.userTurnGroup ?? null,
    })),
  );
  await ensureSession(db, input);
  return db.transaction(async (tx) => {
    let accepted = 0;
    // Chunked so one huge POST stays under the bind-parameter limit (about 20 columns per row).
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = await tx
        .insert(captures)
        .values(rows.slice(i, i + 500))
        .onConflictDoNothing({ target: [captures.tenantId, captures.sessionId, captures.occurrenceKey] })
        .returning({ seq: captures.seq });
      accepted += inserted.length;
    }
    if (accepted > 0) {
      await tx
        .update(sessions)
        .set({ lastCaptureAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(sessions.tenantId, input.tenantId), eq(sessions.sessionId, input.sessionId)));
    }
    const [top] = await tx
      .select({ maxSeq: max(captures.seq) })
      .from(captures)
      .where(and(eq(captures.tenantId, input.tenantId), eq(captures.sessionId, input.sessionId)));
    return { accepted, duplicate: rows.length - accepted, maxSeq: Number(top?.maxSeq ?? 0) };
  });
}

export async function maxCaptureSeq(db: Db, key: SessionKey): Promise<number> {
  const [top] = await db
    .select({ maxSeq: max(captures.seq) })
    .from(captures)
    .where(and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId)));
  return Number(top?.maxSeq ?? 0);
}

export interface PendingCall extends CapturedToolCall {
  seq: number;
  occurrenceKey: string;
}

export interface PendingBatch extends CapturedBatch {
  captureId: string;
  batchIndex: number;
  toolCalls: PendingCall[];
  /** Lowest and highest capture seq in the batch. */
  firstSeq: number;
  lastSeq: number;
}

/**
 * Pending captures with seq <= cursor, grouped back into the client's batches (capture id + batch
 * index), batches ordered by their first seq and calls by their position in the batch.
 */
export async function loadPendingCaptures(db: Db, input: SessionKey & { cursor: number }): Promise<PendingBatch[]> {
  const rows = await db.select().from(captures).where(pendingUpTo(input, input.cursor)).orderBy(asc(captures.seq));
  return groupPendingRows(rows);
}

export interface PendingForFlush {
  batches: PendingBatch[];
  /** Occurrence keys among them that already have a record or a dedup alias in the session. */
  indexed: Set<string>;
}

/**
 * The flush job's first read, in one statement: the pending captures up to the request's cursor
 * (read from the request row, so this can run alongside the request read) and which of them are
 * already indexed (a record or an alias with the same key: the frontier trim).
 */
export async function loadPendingForFlush(db: Db, input: SessionKey & { flushRequestId: string }): Promise<PendingForFlush> {
  const cursor = db
    .select({ cursor: flushRequests.cursor })
    .from(flushRequests)
    .where(and(eq(flushRequests.tenantId, input.tenantId), eq(flushRequests.id, input.flushRequestId)));
  const rows = await db
    .select({
      ...getTableColumns(captures),
      // Qualified by hand: drizzle renders a column inside a select field without its table.
      indexed: sql<boolean>`(exists (select 1 from ${toolCallRecords} r where r.tenant_id = "captures"."tenant_id" and r.session_id = "captures"."session_id" and r.key = "captures"."occurrence_key")
        or exists (select 1 from ${dedupAliases} a where a.tenant_id = "captures"."tenant_id" and a.session_id = "captures"."session_id" and a.key = "captures"."occurrence_key"))`,
    })
    .from(captures)
    .where(pendingUpTo(input, sql`(${cursor})`))
    .orderBy(asc(captures.seq));
  return { batches: groupPendingRows(rows), indexed: new Set(rows.filter((r) => r.indexed).map((r) => r.occurrenceKey)) };
}

/** A session's pending captures with seq <= cursor (a number, or a subquery that yields one). */
function pendingUpTo(key: SessionKey, cursor: number | SQL) {
  return and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId), eq(captures.status, "pending"), lte(captures.seq, cursor));
}

/** Capture rows (in seq order) regrouped into the client's batches (capture id + batch index). */
function groupPendingRows(rows: (typeof captures.$inferSelect)[]): PendingBatch[] {
  const batches = new Map<string, PendingBatch>();
  for (const r of rows) {
    const id = `${r.captureId}\u0000${r.batchIndex}`;
    let b = batches.get(id);
    if (!b) {
      b = { captureId: r.captureId, batchIndex: r.batchIndex, turnIndex: r.turnIndex, timestamp: r.batchTimestamp, assistantText: r.assistantText, toolCalls: [], firstSeq: r.seq, lastSeq: r.seq };
      if (r.userTurnGroup !== null) b.userTurnGroup = r.userTurnGroup;
      batches.set(id, b);
    }
    const call: PendingCall = {
      seq: r.seq,
      occurrenceKey: r.occurrenceKey,
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      args: r.args,
      resultText: r.resultText,
      isError: r.isError,
    };
    if (r.resultTimestamp !== null) call.resultTimestamp = r.resultTimestamp;
    if (r.contentHash !== null) call.contentHash = r.contentHash;
    b.toolCalls.push(call);
    b.firstSeq = Math.min(b.firstSeq, r.seq);
    b.lastSeq = Math.max(b.lastSeq, r.seq);
  }
  const order = new Map(rows.map((r) => [r.seq, r.callIndex]));
  const out = [...batches.values()];
  for (const b of out) b.toolCalls.sort((x, y) => (order.get(x.seq) ?? 0) - (order.get(y.seq) ?? 0));
  return out.sort((x, y) => x.firstSeq - y.firstSeq);
}

export interface CaptureSettlement {
  key: string;
  status: Exclude<CaptureStatus, "pending">;
  reason?: string;
}

export type { CaptureStatus };
