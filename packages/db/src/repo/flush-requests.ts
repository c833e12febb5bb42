/**
 * The flush_requests table: what a client asked for (trigger, pre-flush metrics, detected chains, settings).
 * The request row is written before the job is enqueued, and the job carries only its id and cursor.
 */
import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { emptyStats } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { flushRequests, type FlushRequestStatus } from "../schema/index.ts";
import { date, dateOrNull, num, numOrNull, runStatement } from "../statement.ts";
import { CREATE_REQUEST, CREATE_REQUEST_FOR_SESSION } from "./flush-requests.sql.ts";
import { getSession, type SessionKey } from "./sessions.ts";

export interface FlushRequest {
  id: string;
  tenantId: string;
  sessionId: string;
  trigger: string;
  metrics: Record<string, unknown>;
  chains: unknown[];
  settings: Record<string, unknown>;
  cursor: number;
  status: FlushRequestStatus;
  requestedAt: Date;
  completedAt: Date | null;
  committedVersion: number | null;
  result: Record<string, unknown> | null;
  chainsResult: Record<string, unknown> | null;
  coalescedInto: string | null;
}

export interface CreateFlushRequestInput extends SessionKey {
  /** Optional client-chosen id (uuid): a retried POST with the same id returns the first request. */
  id?: string;
  trigger: string;
  metrics?: Record<string, unknown>;
  chains?: unknown[];
  settings?: Record<string, unknown>;
}

/**
 * Creates the request with cursor = the session's highest capture seq right now, creating the
 * session too if it is new: one statement (flush-requests.sql.ts), as this runs once per flush.
 */
export async function createFlushRequest(
  db: Db,
  input: CreateFlushRequestInput,
): Promise<FlushRequest & { created: boolean }> {
  const [row] = await runStatement(db, CREATE_REQUEST, {
    tenantId: input.tenantId,
    sessionId: input.sessionId,
    emptyStats: JSON.stringify(emptyStats()),
    id: input.id ?? null,
    trigger: input.trigger,
    metrics: JSON.stringify(input.metrics ?? {}),
    chains: JSON.stringify(input.chains ?? []),
    settings: JSON.stringify(input.settings ?? {}),
    withSettings: input.settings !== undefined,
  });
  if (row) return { ...requestFromRow(row), created: true };
  const existing = input.id ? await getFlushRequest(db, input.tenantId, input.id) : null;
  // Same id under another tenant or session is a conflict, never a silent cross-tenant read.
  if (!existing || existing.sessionId !== input.sessionId) throw new FlushRequestConflictError(input.id ?? "");
  return { ...existing, created: false };
}

/**
 * The API's flush request: like `createFlushRequest`, but only for a session that exists, and in one
 * round trip where the route used to read the session first. Settings sent with the request become
 * the session's snapshot and the request's; without them the request carries the session's stored
 * settings as they are (the worker normalizes a request's settings when it runs it). Returns null
 * when the session does not exist. A retried POST (same id, same session) returns the first request;
 * the same id under another session or tenant is a conflict.
 */
export async function createFlushRequestForSession(
  db: Db,
  input: CreateFlushRequestInput,
): Promise<(FlushRequest & { created: boolean }) | null> {
  const [row] = await runStatement(db, CREATE_REQUEST_FOR_SESSION, {
    tenantId: input.tenantId,
    sessionId: input.sessionId,
    id: input.id ?? null,
    trigger: input.trigger,
    metrics: JSON.stringify(input.metrics ?? {}),
    chains: JSON.stringify(input.chains ?? []),
    settings: JSON.stringify(input.settings ?? {}),
    withSettings: input.settings !== undefined,
  });
  if (row) return { ...requestFromRow(row), created: true };
  // No row: the session is missing, or a request with this id exists (the rare paths read again).
  const existing = input.id ? await getFlushRequest(db, input.tenantId, input.id) : null;
  if (existing?.sessionId === input.sessionId) return { ...existing, created: false };
  // A missing session answers first (as a not-found); an id taken by another session or tenant is a conflict.
  if (!(await getSession(db, input))) return null;
  throw new FlushRequestConflictError(input.id ?? "");
}

export async function getFlushRequest(db: Db, tenantId: string, id: string): Promise<FlushRequest | null> {
  const [row] = await db
    .select()
    .from(flushRequests)
    .where(and(eq(flushRequests.tenantId, tenantId), eq(flushRequests.id, id)));
  return row ?? null;
}

/**
 * The request inside a transaction that writes for it (the chain commit, the locked ref
 * reservation); a request that is missing, or belongs to another session, is a NotFoundError.
 */
export async function loadRequest(tx: Tx, key: SessionKey, id: string): Promise<FlushRequest> {
  const [request] = await tx
    .select()
    .from(flushRequests)
    .where(and(eq(flushRequests.tenantId, key.tenantId), eq(flushRequests.id, id)));
  if (!request || request.sessionId !== key.sessionId)
    throw new NotFoundError("flush request", id, `for session ${key.tenantId}/${key.sessionId}`);
  return request;
}

/** Still-queued requests of a session (or a tenant's sessions). */
export async function queuedFlushRequestCount(
  db: Db,
  scope: { tenantId: string; sessionId?: string },
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(flushRequests)
    .where(
      and(
        eq(flushRequests.tenantId, scope.tenantId),
        scope.sessionId === undefined ? undefined : eq(flushRequests.sessionId, scope.sessionId),
        eq(flushRequests.status, "queued"),
      ),
    );
  return row?.n ?? 0;
}

export interface FlushRequestForRun {
  request: FlushRequest;
  /**
   * The attempt number a new run of this request records: the queue's attempt, or one past the last
   * recorded attempt when a released run (shutdown, stall) is re-delivered under the same number.
   */
  attempt: number;
  /** Refs already reserved for this request (occurrence key -> ref), for `reserveRefs`' fast path. */
  refReservation: Record<string, string>;
}

/** The request's jsonb image in the flush run's first read (flush-run-load.sql.ts) -> FlushRequestForRun. */
export function requestForRunFromRow(row: Record<string, unknown>, queueAttempt: number): FlushRequestForRun {
  const lastAttempt = row.last_attempt === null || row.last_attempt === undefined ? 0 : num(row.last_attempt);
  const refReservation = (row.ref_reservation ?? {}) as Record<string, string>;
  return { request: requestFromRow(row), attempt: Math.max(queueAttempt, lastAttempt + 1), refReservation };
}

/** A flush_requests row read by a raw statement (snake_case columns) as a FlushRequest. */
export function requestFromRow(r: Record<string, unknown>): FlushRequest {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    sessionId: r.session_id as string,
    trigger: r.trigger as string,
    metrics: r.metrics as Record<string, unknown>,
    chains: r.chains as unknown[],
    settings: r.settings as Record<string, unknown>,
    cursor: num(r.cursor),
    status: r.status as FlushRequestStatus,
    requestedAt: date(r.requested_at),
    completedAt: dateOrNull(r.completed_at),
    committedVersion: numOrNull(r.committed_version),
    result: (r.result as Record<string, unknown> | null) ?? null,
    chainsResult: (r.chains_result as Record<string, unknown> | null) ?? null,
    coalescedInto: (r.coalesced_into as string | null) ?? null,
  };
}

/** A client-chosen request id already taken by another session or tenant. */
export class FlushRequestConflictError extends ConflictError {
  constructor(id: string) {
    super(`flush request ${id} already exists for another session`);
    this.name = "FlushRequestConflictError";
  }
}

export interface QueuedFlushRequest {
  id: string;
  tenantId: string;
  sessionId: string;
  cursor: number;
  requestedAt: Date;
}

/** The columns a QueuedFlushRequest is read from. */
const QUEUED_COLUMNS = {
  id: flushRequests.id,
  tenantId: flushRequests.tenantId,
  sessionId: flushRequests.sessionId,
  cursor: flushRequests.cursor,
  requestedAt: flushRequests.requestedAt,
};

/**
 * Sessions whose newest still-queued request is older than `olderThan`, with that request: what a
 * lost job leaves behind (an in-process queue that died with its process, a Redis failover without
 * persistence, a BullMQ job failed after too many stalls). A session with a fresher queued request
 * is left alone, its job is presumably on its way. Re-enqueueing is safe: commits are idempotent
 * per request, and the newest request's cursor covers the older ones.
 */
export async function listStaleQueuedFlushRequests(
  db: Db,
  input: { olderThan: Date; limit?: number },
): Promise<QueuedFlushRequest[]> {
  const rows = await db
    .selectDistinctOn([flushRequests.tenantId, flushRequests.sessionId], QUEUED_COLUMNS)
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
 * then given up): the flush persisted a frontier (or was a `roi` flush, whose chain stage runs with
 * nothing pending too), the request carries chains, no chains commit yet.
 */
export async function listUnfinishedChainStages(
  db: Db,
  input: { olderThan: Date; limit?: number },
): Promise<QueuedFlushRequest[]> {
  const rows = await db
    .select(QUEUED_COLUMNS)
    .from(flushRequests)
    .where(
      and(
        eq(flushRequests.status, "committed"),
        isNull(flushRequests.chainsResult),
        lt(flushRequests.completedAt, input.olderThan),
        sql`jsonb_array_length(${flushRequests.chains}) > 0`,
        sql`((${flushRequests.result} -> 'written' ->> 'frontier') = 'true' or ${flushRequests.trigger} = 'roi')`,
      ),
    )
    .limit(input.limit ?? 500);
  return rows.map((r) => ({ ...r, cursor: Number(r.cursor) }));
}
