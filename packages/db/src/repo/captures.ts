/**
 * Captured tool calls. Inserting is idempotent per occurrence key, so a retried POST (same capture
 * id, same calls) changes nothing and reports its calls as duplicates. The flush job reads pending
 * captures up to its cursor, in capture order, regrouped into the batches the client sent.
 */
import { and, asc, eq, lte, max, sql, type SQL } from "drizzle-orm";
import { contentHash, occKey, type CapturedBatch, type CapturedToolCall, type SummarizerStats } from "@condense/core";
import type { Db } from "../client.ts";
import { num, numOrNull, rawQuery } from "../raw-query.ts";
import { captures, sessions, type CaptureStatus } from "../schema/index.ts";
import { keyInSession } from "./key-in-session.sql.ts";
import type { SeenSession } from "./commit-flush.ts";
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
      // Hashed at ingest (off the flush path), so the flush's first read can find canonicals itself.
      contentHash: call.contentHash ?? contentHash(call.toolName, call.resultText),
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
  /**
   * The session's commit sequence and stats in the same snapshot as the captures: `commitFlush`'s
   * optimistic commit applies only if no commit happened since. Null when the session does not exist.
   */
  seen: SeenSession | null;
  /**
   * The content-hash canonicals of these captures, read in the same statement (by each capture's
   * stored hash): the first non-backfilled record with the hash in the session, and in the tenant
   * with its session and whether its key is already present in this session.
   */
  canonicalHints: Map<string, CanonicalHint>;
}

export interface CanonicalHint {
  /** Key of the first record with this hash in this session, or null. */
  sessionKey: string | null;
  /** Key and session of the first record with this hash in the tenant, or null. */
  tenantKey: string | null;
  tenantSession: string | null;
  /** Whether the tenant canonical's key already has a record or an alias in this session. */
  tenantPresent: boolean;
}

/**
 * The flush job's first read, in one statement: the pending captures up to the request's cursor
 * (read from the request row, so this can run alongside the request read), which of them are
 * already indexed (a record or an alias with the same key: the frontier trim), and the session's
 * commit sequence. Fixed text (raw-query.ts): this runs once per flush.
 */
export async function loadPendingForFlush(db: Db, input: SessionKey & { flushRequestId: string }): Promise<PendingForFlush> {
  const rows = await rawQuery(db, PENDING_FOR_FLUSH_SQL, [input.tenantId, input.sessionId, input.flushRequestId]);
  return pendingFromRows(rows);
}

/** Rows of PENDING_FOR_FLUSH_SQL (or a statement extending it) -> what the flush plans from. */
export function pendingFromRows(rows: Record<string, unknown>[]): PendingForFlush {
  const first = rows[0];
  const seen = first ? { commitSeq: num(first.commit_seq), stats: first.stats as SummarizerStats } : null;
  const captured = rows.filter((r) => r.seq !== null).map(captureFromRow);
  const indexed = new Set<string>();
  const canonicalHints = new Map<string, CanonicalHint>();
  for (const r of rows) {
    if (r.indexed === true) indexed.add(r.occurrence_key as string);
    if (typeof r.content_hash === "string") {
      canonicalHints.set(r.content_hash, {
        sessionKey: (r.canon_session_key as string | null) ?? null,
        tenantKey: (r.canon_tenant_key as string | null) ?? null,
        tenantSession: (r.canon_tenant_session as string | null) ?? null,
        tenantPresent: r.canon_tenant_present === true,
      });
    }
  }
  return { batches: groupPendingRows(captured), indexed, seen, canonicalHints };
}

/**
 * $1 tenant, $2 session, $3 flush request: one row per pending capture up to the request's cursor
 * (or one row of nulls when there is none), each with the session's commit_seq and stats.
 * `extraColumns` adds columns to the select list (flush-run-load.ts adds the request).
 */
export const pendingForFlushSql = (extraColumns = "") => `
select s.commit_seq, s.stats, c.seq, c.occurrence_key, c.capture_id, c.batch_index, c.call_index, c.tool_call_id, c.tool_name, c.args,
  c.result_text, c.is_error, c.result_timestamp, c.content_hash, c.turn_index, c.batch_timestamp, c.assistant_text, c.user_turn_group,
  (c.seq is not null and ${keyInSession("c.tenant_id", "c.session_id", "c.occurrence_key")}) as indexed,
  sc.key as canon_session_key, tc.key as canon_tenant_key, tc.session_id as canon_tenant_session,
  (tc.key is not null and ${keyInSession("$1", "$2", "tc.key")}) as canon_tenant_present${extraColumns}
from sessions s
left join captures c on c.tenant_id = s.tenant_id and c.session_id = s.session_id and c.status = 'pending'
  and c.seq <= (select f.cursor from flush_requests f where f.tenant_id = $1 and f.id = $3::uuid)
left join lateral (
  select t.key from tool_call_records t
  where t.tenant_id = $1 and t.session_id = $2 and t.content_hash = c.content_hash and not t.backfilled
  order by t.seq limit 1) sc on true
left join lateral (
  select t.key, t.session_id from tool_call_records t
  where t.tenant_id = $1 and t.content_hash = c.content_hash and not t.backfilled
  order by t.seq limit 1) tc on true
where s.tenant_id = $1 and s.session_id = $2
order by c.seq`;

const PENDING_FOR_FLUSH_SQL = pendingForFlushSql();

/** The columns groupPendingRows reads, from a raw row. */
function captureFromRow(r: Record<string, unknown>): CaptureRow {
  return {
    seq: num(r.seq),
    occurrenceKey: r.occurrence_key as string,
    captureId: r.capture_id as string,
    batchIndex: r.batch_index as number,
    callIndex: r.call_index as number,
    toolCallId: r.tool_call_id as string,
    toolName: r.tool_name as string,
    args: r.args as Record<string, unknown>,
    resultText: r.result_text as string,
    isError: r.is_error as boolean,
    resultTimestamp: numOrNull(r.result_timestamp),
    contentHash: (r.content_hash as string | null) ?? null,
    turnIndex: r.turn_index as number,
    batchTimestamp: num(r.batch_timestamp),
    assistantText: r.assistant_text as string,
    userTurnGroup: (r.user_turn_group as number | null) ?? null,
  };
}

/** What groupPendingRows needs of a capture row. */
type CaptureRow = Pick<typeof captures.$inferSelect,
  "seq" | "occurrenceKey" | "captureId" | "batchIndex" | "callIndex" | "toolCallId" | "toolName" | "args" | "resultText" | "isError"
  | "resultTimestamp" | "contentHash" | "turnIndex" | "batchTimestamp" | "assistantText" | "userTurnGroup">;

/** A session's pending captures with seq <= cursor (a number, or a subquery that yields one). */
function pendingUpTo(key: SessionKey, cursor: number | SQL) {
  return and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId), eq(captures.status, "pending"), lte(captures.seq, cursor));
}

/** Capture rows (in seq order) regrouped into the client's batches (capture id + batch index). */
function groupPendingRows(rows: CaptureRow[]): PendingBatch[] {
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
