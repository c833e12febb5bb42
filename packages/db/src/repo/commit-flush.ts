/**
 * The worker's commit of one flush, in ONE transaction under the session lock: mint short refs from
 * the session counter, write records / summaries / dedup aliases / frontier / stats, settle the
 * captures, write the attempt's flush-metrics row, bump the session version.
 *
 * Idempotent per flush request: once a request is committed, a re-run (a stalled job delivered
 * again, a retry after a crash between commit and ack) returns the stored result and writes nothing.
 * A plan computed from state that another flush has since changed (a capture it settles is no longer
 * pending, or a record it writes already exists) is refused as `stale` so the worker recomputes it.
 */
import { and, eq, inArray, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { DedupAlias, Frontier, SummarizerStats, SummaryEntry } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { captures, dedupAliases, flushRequests, frontiers, sessions, summaries, toolCallRecords } from "../schema/index.ts";
import { sessionLockKey } from "../session-lock.ts";
import type { CaptureSettlement } from "./captures.ts";
import { flushMetricsInsert, markCoalescedQuery, type FlushMetricsWrite } from "./flush-metrics.ts";
import type { FlushRequest } from "./flush-requests.ts";
import { mintRefs, type MintedRefs } from "./ref-minting.ts";
import { addStats, hasStats } from "./stats-sum.ts";
import { chunks, excludedSet } from "./bulk-upsert.ts";
import { aliasToRow, frontierToRow, recordToRow, summaryToRow, type RecordWrite } from "./state-rows.ts";

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
   * summary texts); it runs inside the transaction and must be pure.
   */
  writes: FlushWrites | ((minted: MintedRefs) => FlushWrites);
}

export interface CommitFlushResult {
  status: "committed" | "already-committed" | "stale";
  /** The session version after the commit (the version the commit wrote, or the current one). */
  version: number;
  /** Occurrence key -> minted ref. */
  refs: Record<string, string>;
  nextRef: number;
  written: { records: number; summaries: number; aliases: number; captures: number; frontier: boolean; metricsRow: boolean };
  /** For `stale`: the keys that another flush settled or wrote meanwhile. */
  conflicts?: string[];
}

/** Thrown inside the commit transaction to roll back writes sent alongside a conflict probe that found conflicts. */
class StaleCommit extends Error {
  constructor(readonly conflicts: string[], readonly version: number, readonly nextRef: number) {
    super("stale flush commit");
  }
}

/**
 * Round trips: BEGIN; the lock, the request and the session row (sent together, run in order); the
 * staleness probes and every write (sent together: the probes run first and see the state before the
 * writes, and a probe that finds a conflict rolls the whole transaction back); COMMIT.
 */
export async function commitFlush(db: Db, input: CommitFlushInput): Promise<CommitFlushResult> {
  const { tenantId, sessionId } = input;
  try {
    return await db.transaction(async (tx) => {
      const [, requestRows, sessionRows] = await Promise.all([
        send(tx.execute(sql`select pg_advisory_xact_lock(${sessionLockKey(tenantId, sessionId)}::bigint)`)),
        send(tx.select().from(flushRequests).where(and(eq(flushRequests.tenantId, tenantId), eq(flushRequests.id, input.flushRequestId)))),
        send(sessionForUpdate(tx, tenantId, sessionId)),
      ]);
      const request = requestRow(requestRows[0], tenantId, sessionId, input.flushRequestId);
      const session = sessionRows[0];
      if (!session) throw new Error(`session ${tenantId}/${sessionId} not found`);
      if (request.status === "committed" && request.result) {
        return { ...(request.result as unknown as CommitFlushResult), status: "already-committed" as const };
      }

      const minted = mintRefs(session.nextRef, input.mintRefs);
      const w = typeof input.writes === "function" ? input.writes(minted) : input.writes;
      const changesState = w.records.length + w.summaries.length + w.aliases.length > 0 || w.frontier !== null || hasStats(w.stats);
      const version = changesState ? session.version + 1 : session.version;
      const fr = input.flushRequestId;
      const settlements = groupSettlements(w.captures);
      // What the capture updates and the metrics insert will report; checked after the batch, and the
      // stored result is rewritten in the rare case they differ.
      const expected = { captures: settlements.reduce((n, g) => n + new Set(g.keys).size, 0), metricsRow: true };
      const resultWith = (settled: number, metricsRow: boolean): CommitFlushResult => ({
        status: "committed",
        version,
        refs: Object.fromEntries(minted.byKey),
        nextRef: minted.nextRef,
        written: { records: w.records.length, summaries: w.summaries.length, aliases: w.aliases.length, captures: settled, frontier: w.frontier !== null, metricsRow },
      });
      const result = resultWith(expected.captures, expected.metricsRow);
      const storeResultQuery = (r: CommitFlushResult) => tx
        .update(flushRequests)
        .set({ status: "committed", completedAt: sql`now()`, committedVersion: version, result: r as unknown as Record<string, unknown> })
        .where(eq(flushRequests.id, request.id));

      // The probes and every write, built (not started). Probes read the state before any write.
      const probes = conflictProbeQueries(tx, tenantId, sessionId, w);
      const writes: Query<unknown>[] = [];
      for (const chunk of chunks(w.records.map((r) => recordToRow(tenantId, sessionId, version, fr, r)), 200)) {
        writes.push(tx.insert(toolCallRecords).values(chunk).onConflictDoUpdate({
          target: [toolCallRecords.tenantId, toolCallRecords.sessionId, toolCallRecords.key],
          set: excludedSet(["tool_call_id", "tool_name", "args", "result_text", "is_error", "turn_index", "batch_timestamp", "result_timestamp", "short_ref", "content_hash", "stored_bytes", "stored_preview", "stored_body", "summary_id", "backfilled", "version", "flush_request_id"]),
        }));
      }
      for (const chunk of chunks(w.summaries.map((s) => summaryToRow(tenantId, sessionId, version, fr, s)), 200)) {
        writes.push(tx.insert(summaries).values(chunk).onConflictDoUpdate({
          target: [summaries.tenantId, summaries.sessionId, summaries.id],
          set: excludedSet(["text", "refs", "coverage", "tool_names", "turn_index", "timestamp", "version", "flush_request_id"]),
        }));
      }
      for (const chunk of chunks(w.aliases.map((a) => aliasToRow(tenantId, sessionId, version, fr, a)), 500)) {
        writes.push(tx.insert(dedupAliases).values(chunk).onConflictDoUpdate({
          target: [dedupAliases.tenantId, dedupAliases.sessionId, dedupAliases.key],
          set: excludedSet(["original_key", "version", "flush_request_id"]),
        }));
      }
      if (w.frontier) {
        const row = frontierToRow(tenantId, sessionId, version, w.frontier);
        const { tenantId: _t, sessionId: _s, ...set } = row;
        writes.push(tx.insert(frontiers).values(row).onConflictDoUpdate({ target: [frontiers.tenantId, frontiers.sessionId], set }));
      }
      const settles = settlements.map((group) => tx
        .update(captures)
        .set({ status: group.status, statusReason: group.reason ?? null, settledBy: fr })
        .where(and(eq(captures.tenantId, tenantId), eq(captures.sessionId, sessionId), inArray(captures.occurrenceKey, group.keys)))
        .returning({ seq: captures.seq }));
      const metricsInsert = flushMetricsInsert(tx, request, input.attempt, w.metrics);
      writes.push(tx
        .update(sessions)
        .set({
          nextRef: minted.nextRef,
          version,
          ...(hasStats(w.stats) ? { stats: addStats(session.stats, w.stats!), statsVersion: version } : {}),
          lastFlushAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId))));
      writes.push(storeResultQuery(result));
      writes.push(markCoalescedQuery(tx, request));

      // Up to a bind-parameter budget, everything is ONE statement of data-modifying CTEs (they all see
      // the state before the statement, and touch disjoint rows); past it, the same statements pipelined.
      const params = w.records.length * 21 + w.summaries.length * 12 + w.aliases.length * 8 + w.captures.length * 2 + 80;
      const outcome = params <= 20_000
        ? await oneStatement(tx, probes, settles, metricsInsert, writes)
        : await pipelined(probes, settles, metricsInsert, writes);
      const { conflicts, settled: settledN, metricsRow: metricsInserted } = outcome;
      if (conflicts.length > 0) throw new StaleCommit(conflicts, session.version, session.nextRef);
      if (settledN !== expected.captures || metricsInserted !== expected.metricsRow) {
        const actual = resultWith(settledN, metricsInserted);
        await storeResultQuery(actual);
        return actual;
      }
      return result;
    });
  } catch (err) {
    if (err instanceof StaleCommit) {
      return { status: "stale", version: err.version, refs: {}, nextRef: err.nextRef, written: emptyWritten(), conflicts: err.conflicts };
    }
    throw err;
  }
}

/**
 * Starts a query now (drizzle queries are lazy) and returns a native promise. Statements of one
 * transaction started this way in a row are pipelined on its connection in exactly that order;
 * `await`ing a query builder instead would start it a microtask later and could reorder it.
 */
function send<T>(query: PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => { query.then(resolve, reject); });
}

function requestRow(row: FlushRequest | undefined, tenantId: string, sessionId: string, id: string): FlushRequest {
  if (!row || row.sessionId !== sessionId) throw new Error(`flush request ${id} not found for session ${tenantId}/${sessionId}`);
  return row;
}

/**
 * The session row, locked for the rest of the transaction. NO KEY UPDATE (not UPDATE): no key column
 * changes, so the API's capture and flush-request inserts (whose foreign-key checks take KEY SHARE on
 * this row) are not blocked behind a commit.
 */
function sessionForUpdate(tx: Tx, tenantId: string, sessionId: string) {
  return tx
    .select({ nextRef: sessions.nextRef, nextBlock: sessions.nextBlock, version: sessions.version, stats: sessions.stats })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)))
    .for("no key update");
}

export async function loadRequest(tx: Tx, tenantId: string, sessionId: string, id: string): Promise<FlushRequest> {
  const [request] = await tx.select().from(flushRequests).where(and(eq(flushRequests.tenantId, tenantId), eq(flushRequests.id, id)));
  if (!request || request.sessionId !== sessionId) throw new Error(`flush request ${id} not found for session ${tenantId}/${sessionId}`);
  return request;
}

export async function loadSessionForUpdate(tx: Tx, tenantId: string, sessionId: string) {
  const [session] = await tx
    .select({ nextRef: sessions.nextRef, nextBlock: sessions.nextBlock, version: sessions.version, stats: sessions.stats })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)))
    .for("no key update");
  if (!session) throw new Error(`session ${tenantId}/${sessionId} not found`);
  return session;
}

/** Captures this plan settles that are no longer pending, and records it writes that already exist (not started). */
function conflictProbeQueries(tx: Tx, tenantId: string, sessionId: string, w: FlushWrites) {
  const settleKeys = w.captures.map((c) => c.key);
  const recordKeys = w.records.map((r) => r.key);
  return [
    // Aliased "key" in SQL too: the one-statement form reads both probes' rows by that name.
    ...chunks(settleKeys, 1000).map((chunk) => tx
      .select({ key: sql<string>`${captures.occurrenceKey}`.as("key") })
      .from(captures)
      .where(and(eq(captures.tenantId, tenantId), eq(captures.sessionId, sessionId), inArray(captures.occurrenceKey, chunk), sql`${captures.status} <> 'pending'`))),
    ...chunks(recordKeys, 1000).map((chunk) => tx
      .select({ key: toolCallRecords.key })
      .from(toolCallRecords)
      .where(and(eq(toolCallRecords.tenantId, tenantId), eq(toolCallRecords.sessionId, sessionId), inArray(toolCallRecords.key, chunk)))),
  ];
}

interface WriteOutcome { conflicts: string[]; settled: number; metricsRow: boolean }

/** A built, not yet started drizzle query: embeddable in `sql` and startable. */
type Query<T> = SQLWrapper & PromiseLike<T>;

/**
 * Probes and writes as one statement: `with p0 as (probe), ..., w0 as (write), ... select` the
 * conflicting keys, the settled capture count and whether the metrics row was inserted.
 */
async function oneStatement(tx: Tx, probes: Query<{ key: string }[]>[], settles: Query<{ seq: number }[]>[], metricsInsert: Query<{ id: number }[]>, writes: Query<unknown>[]): Promise<WriteOutcome> {
  // drizzle parenthesizes an embedded query itself.
  const ctes: SQL[] = [
    ...probes.map((q, i) => sql`${sql.raw(`p${i}`)} as ${q}`),
    ...settles.map((q, i) => sql`${sql.raw(`c${i}`)} as ${q}`),
    sql`m as ${metricsInsert}`,
    ...writes.map((q, i) => sql`${sql.raw(`w${i}`)} as ${q}`),
  ];
  const conflicts = probes.length > 0 ? sql.raw(`(select coalesce(json_agg(k.key), '[]'::json) from (${probes.map((_, i) => `select key from p${i}`).join(" union ")}) k)`) : sql.raw(`'[]'::json`);
  const settled = settles.length > 0 ? sql.raw(settles.map((_, i) => `(select count(*) from c${i})`).join(" + ")) : sql.raw("0");
  const res = await tx.execute(sql`with ${sql.join(ctes, sql`, `)} select ${conflicts} as conflicts, (${settled})::int as settled, (select count(*) from m)::int as metrics`);
  // postgres.js returns the rows, PGlite a result object holding them.
  const rows = (Array.isArray(res) ? res : (res as unknown as { rows: unknown[] }).rows) as { conflicts: string[] | string; settled: number | string; metrics: number | string }[];
  const row = rows[0]!;
  const list = typeof row.conflicts === "string" ? (JSON.parse(row.conflicts) as string[]) : row.conflicts;
  return { conflicts: [...new Set(list)], settled: Number(row.settled), metricsRow: Number(row.metrics) > 0 };
}

/** The same statements one by one, pipelined (for writes too large for one statement's parameters). */
async function pipelined(probes: Query<{ key: string }[]>[], settles: Query<{ seq: number }[]>[], metricsInsert: Query<{ id: number }[]>, writes: Query<unknown>[]): Promise<WriteOutcome> {
  // Started in this order with send(): probes first, so they see the state before the writes.
  const probed = Promise.all(probes.map((q) => send(q))).then((lists) => [...new Set(lists.flat().map((r) => r.key))]);
  const settled = Promise.all(settles.map((q) => send(q).then((rows) => rows.length))).then((ns) => ns.reduce((a, b) => a + b, 0));
  const metricsRow = send(metricsInsert).then((rows) => rows.length > 0);
  const rest = writes.map((q) => send(q));
  const [conflicts, n, m] = await Promise.all([probed, settled, metricsRow, ...rest]);
  return { conflicts, settled: n, metricsRow: m };
}

function groupSettlements(list: CaptureSettlement[]): { status: CaptureSettlement["status"]; reason?: string; keys: string[] }[] {
  const groups = new Map<string, { status: CaptureSettlement["status"]; reason?: string; keys: string[] }>();
  for (const c of list) {
    const id = `${c.status}\u0000${c.reason ?? ""}`;
    const g = groups.get(id) ?? { status: c.status, ...(c.reason !== undefined ? { reason: c.reason } : {}), keys: [] };
    g.keys.push(c.key);
    groups.set(id, g);
  }
  return [...groups.values()].flatMap((g) => chunks(g.keys, 1000).map((keys) => ({ ...g, keys })));
}

function emptyWritten(): CommitFlushResult["written"] {
  return { records: 0, summaries: 0, aliases: 0, captures: 0, frontier: false, metricsRow: false };
}
