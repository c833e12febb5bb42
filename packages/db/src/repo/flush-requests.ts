/**
 * Flush requests: what a client asked for (trigger, pre-flush metrics, detected chains, settings).
 * The request row is written before the job is enqueued, and the job carries only its id and cursor.
 */
import { and, eq, getTableColumns, max, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { captures, flushMetrics, flushRequests, type FlushRequestStatus } from "../schema/index.ts";
import { ensureSession, type SessionKey } from "./sessions.ts";

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

/** Creates the request with cursor = the session's highest capture seq right now. */
export async function createFlushRequest(db: Db, input: CreateFlushRequestInput): Promise<FlushRequest & { created: boolean }> {
  await ensureSession(db, input);
  const cursor = db
    .select({ v: sql`coalesce(${max(captures.seq)}, 0)` })
    .from(captures)
    .where(and(eq(captures.tenantId, input.tenantId), eq(captures.sessionId, input.sessionId)));
  const inserted = await db
    .insert(flushRequests)
    .values({
      ...(input.id ? { id: input.id } : {}),
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      trigger: input.trigger,
      metrics: input.metrics ?? {},
      chains: input.chains ?? [],
      settings: input.settings ?? {},
      cursor: sql`(${cursor})`,
    })
    .onConflictDoNothing({ target: flushRequests.id })
    .returning();
  if (inserted[0]) return { ...inserted[0], created: true };
  const existing = input.id ? await getFlushRequest(db, input.tenantId, input.id) : null;
  // Same id under another tenant or session is a conflict, never a silent cross-tenant read.
  if (!existing || existing.sessionId !== input.sessionId) throw new FlushRequestConflictError(input.id ?? "");
  return { ...existing, created: false };
}

export async function getFlushRequest(db: Db, tenantId: string, id: string): Promise<FlushRequest | null> {
  const [row] = await db.select().from(flushRequests).where(and(eq(flushRequests.tenantId, tenantId), eq(flushRequests.id, id)));
  return row ?? null;
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

/**
 * What a flush run reads first, in one round trip: the request, its last recorded attempt and its
 * ref reservation. Null when the request does not exist for this tenant.
 */
export async function getFlushRequestForRun(db: Db, input: { tenantId: string; flushRequestId: string; queueAttempt: number }): Promise<FlushRequestForRun | null> {
  const { refReservation: _r, ...columns } = getTableColumns(flushRequests);
  const [row] = await db
    .select({
      ...columns,
      refReservation: flushRequests.refReservation,
      lastAttempt: sql<number | null>`(select max(m.attempt) from ${flushMetrics} m where m.flush_request_id = "flush_requests"."id")`,
    })
    .from(flushRequests)
    .where(and(eq(flushRequests.tenantId, input.tenantId), eq(flushRequests.id, input.flushRequestId)));
  if (!row) return null;
  const { lastAttempt, refReservation, ...request } = row;
  return { request, attempt: Math.max(input.queueAttempt, Number(lastAttempt ?? 0) + 1), refReservation: refReservation ?? {} };
}

export class FlushRequestConflictError extends Error {
  constructor(id: string) {
    super(`flush request ${id} already exists for another session`);
    this.name = "FlushRequestConflictError";
  }
}
