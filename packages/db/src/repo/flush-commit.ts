/**
 * The worker's commit of one flush: mint short refs from the session counter, write records /
 * summaries / dedup aliases / frontier / stats, settle the captures, write the attempt's
 * flush-metrics row, bump the session version, store the result on the request. All of it is ONE
 * statement of data-modifying CTEs (flush-commit.sql.ts), so it is atomic on its own. A cross-table
 * operation: it writes sessions, tool_call_records, summaries, dedup_aliases, frontiers, captures,
 * flush_metrics and flush_requests.
 *
 * Two ways to run it:
 * - **Optimistic** (the worker's path: `seen` given, no refs to mint): the statement alone, no
 *   transaction and no lock. It applies only if the session's `commit_seq` still equals the one the
 *   worker read with its pending captures, so no other commit happened in between; the session-row
 *   update that checks it waits for any concurrent commit of the session and re-reads the row after
 *   it (READ COMMITTED re-check), so two commits cannot both pass.
 * - **Locked** (refs to mint, or no `seen`): BEGIN; the session lock, the request and the session row;
 *   the statement; COMMIT. Minting reads the counter under the lock.
 *
 * Idempotent per flush request: once a request is committed, a re-run (a stalled job delivered
 * again, a retry after a crash between commit and ack) returns the stored result and writes nothing.
 * A plan computed from state that another flush has since changed (a capture it settles is no longer
 * pending, a record it writes already exists, or any commit since `seen`) is refused as `stale` so the
 * worker recomputes it.
 */
import type { DedupAlias, Frontier, SummarizerStats, SummaryEntry } from "@condense/core";
import type { Db } from "../client.ts";
import { NotFoundError } from "../errors.ts";
import { sessionLockKey } from "../session-lock.ts";
import { inTransaction, num, runStatement, type Connection } from "../statement.ts";
import type { CaptureSettlement } from "./captures.ts";
import {
  COMMIT_FLUSH,
  LOCK_SESSION,
  SESSION_FOR_UPDATE,
  STORE_RESULT,
  commitParams,
  type CommitRow,
} from "./flush-commit.sql.ts";
import type { FlushMetricsWrite } from "./flush-metrics.ts";
import { REQUEST_BY_ID } from "./flush-requests.sql.ts";
import { requestFromRow, type FlushRequest } from "./flush-requests.ts";
import { mintRefs, type MintedRefs } from "./ref-minting.ts";
import { addStats, hasStats } from "./stats-sum.ts";
import type { RecordWrite } from "./tool-call-records.ts";

export interface FlushWrites {
  records: RecordWrite[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  /** The new frontier; null leaves the stored one unchanged. */
  frontier: Frontier | null;
  /** Added to the session's stats (counts and usage of this flush only). */
  stats?: Partial<SummarizerStats>;
  captures: CaptureSettlement[];
  metrics: FlushMetricsWrite;
}

/** The session as the caller read it together with the pending captures it planned from. */
export interface SeenSession {
  commitSeq: number;
  stats: SummarizerStats;
}

export interface CommitFlushInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  /** 1-based job attempt; with the request id it keys the flush-metrics row. */
  attempt: number;
  /** Occurrence keys to mint refs for, grouped per batch, in minting order (CAP-REF-1). */
  mintRefs: string[][];
  /**
   * The rows to write. A function receives the freshly minted refs (to put them into records and
   * summary texts); it runs before the writes are sent and must be pure.
   */
  writes: FlushWrites | ((minted: MintedRefs) => FlushWrites);
  /** Enables the optimistic commit (see the file comment) when there are no refs to mint. */
  seen?: SeenSession;
}

export interface CommitFlushResult {
  status: "committed" | "already-committed" | "stale";
  /** The session version after the commit (the version the commit wrote, or the current one). */
  version: number;
  /** Occurrence key -> minted ref. */
  refs: Record<string, string>;
  nextRef: number;
  written: {
    records: number;
    summaries: number;
    aliases: number;
    captures: number;
    frontier: boolean;
    metricsRow: boolean;
  };
  /** For `stale`: the keys that another flush settled or wrote meanwhile. */
  conflicts?: string[];
}

/** Thrown inside the locked transaction to roll back what it did before finding the commit stale. */
class StaleCommit extends Error {
  constructor(readonly result: CommitFlushResult) {
    super("stale flush commit");
  }
}

export async function commitFlush(db: Db, input: CommitFlushInput): Promise<CommitFlushResult> {
  if (input.seen && input.mintRefs.length === 0) return commitOptimistic(db, input, input.seen);
  try {
    return await inTransaction(db, (conn) => commitLocked(conn, input));
  } catch (err) {
    if (err instanceof StaleCommit) return err.result;
    throw err;
  }
}

async function commitOptimistic(db: Db, input: CommitFlushInput, seen: SeenSession): Promise<CommitFlushResult> {
  const minted = mintRefs(0, []);
  const w = typeof input.writes === "function" ? input.writes(minted) : input.writes;
  const outcome = await sendCommit(db, input, w, minted, { commitSeq: seen.commitSeq, stats: seen.stats });
  if (outcome.requestStatus === null) throw notFound(input);
  return outcome.result;
}

/** BEGIN; lock + request + session row (sent together, run in order); the statement; COMMIT. */
async function commitLocked(conn: Connection, input: CommitFlushInput): Promise<CommitFlushResult> {
  const { tenantId, sessionId } = input;
  const [, request, session] = await Promise.all([
    runStatement(conn, LOCK_SESSION, { lockKey: sessionLockKey(tenantId, sessionId) }),
    loadRequest(conn, tenantId, sessionId, input.flushRequestId),
    loadSessionForUpdate(conn, tenantId, sessionId),
  ]);
  if (request.status === "committed" && request.result) return storedResult(request.result);
  const minted = mintRefs(session.nextRef, input.mintRefs);
  const w = typeof input.writes === "function" ? input.writes(minted) : input.writes;
  const outcome = await sendCommit(conn, input, w, minted, { commitSeq: null, stats: session.stats });
  if (outcome.result.status === "stale") throw new StaleCommit(outcome.result);
  return outcome.result;
}

/** Sends the statement and turns its one row into the commit's result. */
async function sendCommit(
  db: Db | Connection,
  input: CommitFlushInput,
  w: FlushWrites,
  minted: MintedRefs,
  base: { commitSeq: number | null; stats: SummarizerStats },
): Promise<{ result: CommitFlushResult; requestStatus: string | null }> {
  const changesState =
    w.records.length + w.summaries.length + w.aliases.length > 0 || w.frontier !== null || hasStats(w.stats);
  const settledKeys = new Set(w.captures.map((c) => c.key)).size;
  const written = {
    records: w.records.length,
    summaries: w.summaries.length,
    aliases: w.aliases.length,
    captures: settledKeys,
    frontier: w.frontier !== null,
    metricsRow: true,
  };
  const refs = Object.fromEntries(minted.byKey);
  // Stored on the request; the statement adds the version and the counter it wrote.
  const stored = { status: "committed", refs, written };
  const params = commitParams({
    tenantId: input.tenantId,
    sessionId: input.sessionId,
    flushRequestId: input.flushRequestId,
    attempt: input.attempt,
    expectedCommitSeq: base.commitSeq,
    bump: changesState,
    stats: hasStats(w.stats) ? addStats(base.stats, w.stats!) : null,
    nextRefAtLeast: Math.max(minted.nextRef, highestRef(w) + 1),
    writes: w,
    stored,
  });
  const [row] = await runStatement<CommitRow, typeof params>(db, COMMIT_FLUSH, params);
  if (!row) throw new Error("commit statement returned no row");
  const requestStatus = row.request_status;
  if (num(row.applied) === 0) {
    if (requestStatus === "committed" && row.request_result)
      return { result: storedResult(row.request_result), requestStatus };
    const conflicts = [...new Set(parseJson<string[]>(row.conflicts))];
    return {
      result: {
        status: "stale",
        version: num(row.current_version ?? 0),
        refs: {},
        nextRef: num(row.current_next_ref ?? 0),
        written: emptyWritten(),
        conflicts,
      },
      requestStatus,
    };
  }
  const result: CommitFlushResult = {
    status: "committed",
    version: num(row.version),
    refs,
    nextRef: num(row.next_ref),
    written,
  };
  const settled = num(row.settled);
  const metricsRow = num(row.metrics) > 0;
  if (settled !== written.captures || metricsRow !== written.metricsRow) {
    // What the statement reports differs from what the plan expected (it should not, under the
    // guard): the stored result says what was actually written.
    const actual = { ...result, written: { ...written, captures: settled, metricsRow } };
    await runStatement(db, STORE_RESULT, { flushRequestId: input.flushRequestId, result: JSON.stringify(actual) });
    return { result: actual, requestStatus };
  }
  return { result, requestStatus };
}

/**
 * The highest `tN` the writes carry (0 if none). The counter is raised past it in the same statement,
 * so refs reserved earlier can never be handed out again, even if that reservation itself was lost
 * (it commits asynchronously: ref-reservation.ts).
 */
function highestRef(w: FlushWrites): number {
  let top = 0;
  const see = (ref: string | undefined) => {
    if (ref === undefined || !ref.startsWith("t")) return;
    const n = Number(ref.slice(1));
    if (Number.isInteger(n) && n > top) top = n;
  };
  for (const r of w.records) see(r.shortRef);
  for (const s of w.summaries) for (const r of s.refs) see(r.shortId);
  return top;
}

function storedResult(stored: Record<string, unknown>): CommitFlushResult {
  return { ...(stored as unknown as CommitFlushResult), status: "already-committed" };
}

function parseJson<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

function notFound(input: CommitFlushInput): Error {
  return new NotFoundError("flush request", input.flushRequestId, `for session ${input.tenantId}/${input.sessionId}`);
}

async function loadRequest(conn: Connection, tenantId: string, sessionId: string, id: string): Promise<FlushRequest> {
  const [row] = await runStatement(conn, REQUEST_BY_ID, { tenantId, id });
  const request = row ? requestFromRow(row) : undefined;
  if (!request || request.sessionId !== sessionId)
    throw new NotFoundError("flush request", id, `for session ${tenantId}/${sessionId}`);
  return request;
}

async function loadSessionForUpdate(
  conn: Connection,
  tenantId: string,
  sessionId: string,
): Promise<{ nextRef: number; stats: SummarizerStats }> {
  const [session] = await runStatement(conn, SESSION_FOR_UPDATE, { tenantId, sessionId });
  if (!session) throw new NotFoundError("session", `${tenantId}/${sessionId}`);
  return { nextRef: num(session.next_ref), stats: session.stats as SummarizerStats };
}

function emptyWritten(): CommitFlushResult["written"] {
  return { records: 0, summaries: 0, aliases: 0, captures: 0, frontier: false, metricsRow: false };
}
