/**
 * Flush requests: what a client asked for (trigger, pre-flush metrics, detected chains, settings).
 * The request row is written before the job is enqueued, and the job carries only its id and cursor.
 */
import { and, eq } from "drizzle-orm";
import { emptyStats } from "@condense/core";
import type { Db } from "../client.ts";
import { date, dateOrNull, num, numOrNull, rawQuery } from "../raw-query.ts";
import { flushRequests, type FlushRequestStatus } from "../schema/index.ts";
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
 * session too if it is new: one statement (fixed text, raw-query.ts), as this runs once per flush.
 */
export async function createFlushRequest(db: Db, input: CreateFlushRequestInput): Promise<FlushRequest & { created: boolean }> {
  const [row] = await rawQuery(db, CREATE_REQUEST_SQL, [
    input.tenantId, input.sessionId, JSON.stringify(emptyStats()), input.id ?? null, input.trigger,
    JSON.stringify(input.metrics ?? {}), JSON.stringify(input.chains ?? []), JSON.stringify(input.settings ?? {}), input.settings !== undefined,
  ]);
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
export async function createFlushRequestForSession(db: Db, input: CreateFlushRequestInput): Promise<(FlushRequest & { created: boolean }) | null> {
  const [row] = await rawQuery(db, CREATE_REQUEST_FOR_SESSION_SQL, [
    input.tenantId, input.sessionId, input.id ?? null, input.trigger,
    JSON.stringify(input.metrics ?? {}), JSON.stringify(input.chains ?? []), JSON.stringify(input.settings ?? {}), input.settings !== undefined,
  ]);
  if (row) return { ...requestFromRow(row), created: true };
  // No row: the session is missing, or a request with this id exists (the rare paths read again).
  const existing = input.id ? await getFlushRequest(db, input.tenantId, input.id) : null;
  if (existing?.sessionId === input.sessionId) return { ...existing, created: false };
  // A missing session answers first (as a not-found); an id taken by another session or tenant is a conflict.
  if (!(await getSession(db, input))) return null;
  throw new FlushRequestConflictError(input.id ?? "");
}

const REQUEST_COLUMNS = "id, tenant_id, session_id, trigger, metrics, chains, settings, cursor, status, requested_at, completed_at, committed_version, result, chains_result, coalesced_into";

/**
 * The session insert and the request insert in one statement; the request's foreign key is checked
 * at the end of the statement, after the session row is in. Settings sent with the request ($9) become
 * the session's snapshot, as `ensureSession` does; without them an existing session is left as it is.
 * No row back when a request with this id exists already (a retried POST).
 */
const CREATE_REQUEST_SQL = `
with s as (
  insert into sessions (tenant_id, session_id, settings, stats) values ($1, $2, $8::jsonb, $3::jsonb)
  on conflict (tenant_id, session_id) do update set settings = excluded.settings, updated_at = now() where $9::boolean
  returning 1
)
insert into flush_requests (id, tenant_id, session_id, trigger, metrics, chains, settings, cursor)
select coalesce($4::uuid, gen_random_uuid()), $1, $2, $5, $6::jsonb, $7::jsonb, $8::jsonb,
  (select coalesce(max(c.seq), 0) from captures c where c.tenant_id = $1 and c.session_id = $2)
on conflict (id) do nothing
returning ${REQUEST_COLUMNS}`;

/**
 * One statement: the session's stored settings (its existence check), its settings snapshot when the
 * request brings settings ($8), and the request with cursor = the session's highest capture seq. No
 * row back when the session is missing or a request with this id exists already.
 */
const CREATE_REQUEST_FOR_SESSION_SQL = `
with s as (
  select settings from sessions where tenant_id = $1 and session_id = $2
), u as (
  update sessions set settings = $7::jsonb, updated_at = now() where tenant_id = $1 and session_id = $2 and $8::boolean
  returning 1
)
insert into flush_requests (id, tenant_id, session_id, trigger, metrics, chains, settings, cursor)
select coalesce($3::uuid, gen_random_uuid()), $1, $2, $4, $5::jsonb, $6::jsonb,
  case when $8::boolean then $7::jsonb else s.settings end,
  (select coalesce(max(c.seq), 0) from captures c where c.tenant_id = $1 and c.session_id = $2)
from s
on conflict (id) do nothing
returning ${REQUEST_COLUMNS}`;

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

/** One request of a tenant by id (fixed text: see raw-query.ts). */
export const REQUEST_BY_ID_SQL = `select ${REQUEST_COLUMNS} from flush_requests where tenant_id = $1 and id = $2::uuid`;

/** The request with its last recorded attempt and ref reservation, over the given parameters (flush-run-load.ts embeds it). */
export const requestForRunFragment = (tenant: string, id: string) => `select ${REQUEST_COLUMNS}, ref_reservation,
  (select max(m.attempt) from flush_metrics m where m.flush_request_id = flush_requests.id) as last_attempt
  from flush_requests where tenant_id = ${tenant} and id = ${id}::uuid`;

/** A row of the request-for-run read (raw, or as its jsonb image) -> FlushRequestForRun. */
export function requestForRunFromRow(row: Record<string, unknown>, queueAttempt: number): FlushRequestForRun {
  const lastAttempt = row.last_attempt === null || row.last_attempt === undefined ? 0 : num(row.last_attempt);
  const refReservation = (row.ref_reservation ?? {}) as Record<string, string>;
  return { request: requestFromRow(row), attempt: Math.max(queueAttempt, lastAttempt + 1), refReservation };
}

/** A flush_requests row read with raw SQL (snake_case columns) as a FlushRequest. */
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

export class FlushRequestConflictError extends Error {
  constructor(id: string) {
    super(`flush request ${id} already exists for another session`);
    this.name = "FlushRequestConflictError";
  }
}
