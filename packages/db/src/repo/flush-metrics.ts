/**
 * The flush_metrics table: one row per worker attempt, keyed (flush_request_id, attempt) so a re-delivered
 * attempt cannot write twice. commitFlush writes the row of a committing attempt in its own
 * statement; `recordFlushMetrics` writes the others (errors, empty flushes). Read back as a
 * session's recent flushes, a tenant's window aggregates (fleet status) and the cache economics:
 * cache writes caused by Condense against cache reads it saves, per agent model, from the generated
 * columns (the cost model's expectations sent with each flush request). Rows of attempts that changed
 * nothing (error, empty) are left out of the economics, so a retried flush is counted once.
 */
import { and, desc, eq, gte, isNotNull, ne, notInArray, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../client.ts";
import { NotFoundError } from "../errors.ts";
import { flushMetrics, flushRequests, type FlushMetricsOutcome, type SummaryModel } from "../schema/index.ts";
import type { FlushRequest } from "./flush-requests.ts";
import type { SessionKey } from "./sessions.ts";

export interface FlushMetricsWrite {
  outcome: FlushMetricsOutcome;
  reason?: string;
  /** Defaults to the flush request's trigger. */
  trigger?: string;
  capturedBatches?: number;
  processedBatches?: number;
  attemptedCalls?: number;
  dedupHits?: number;
  rawChars?: number;
  summaryChars?: number;
  /** Defaults to the flush request's pre-flush metrics snapshot. */
  metrics?: Record<string, unknown>;
  queueWaitMs?: number;
  runMs?: number;
  model?: string;
  bodySource?: string;
  inputTokens?: number;
  outputTokens?: number;
  cost?: number;
  fidelityScore?: number;
  workerId?: string;
  summaryModels?: SummaryModel[];
  summarizerSource?: string;
  summarizerNotice?: string;
}

/** Insert the attempt's row; false when this attempt already has one. */
export async function insertFlushMetricsRow(
  tx: Tx | Db,
  request: FlushRequest,
  attempt: number,
  m: FlushMetricsWrite,
): Promise<boolean> {
  const rows = await flushMetricsInsert(tx, request, attempt, m);
  return rows.length > 0;
}

/** The insert of `insertFlushMetricsRow`, not started (returns the inserted id, none on conflict). */
export function flushMetricsInsert(tx: Tx | Db, request: FlushRequest, attempt: number, m: FlushMetricsWrite) {
  return tx
    .insert(flushMetrics)
    .values({
      ...flushMetricsValues(m),
      tenantId: request.tenantId,
      sessionId: request.sessionId,
      flushRequestId: request.id,
      attempt,
      trigger: m.trigger ?? request.trigger,
      metrics: m.metrics ?? request.metrics,
    })
    .onConflictDoNothing({ target: [flushMetrics.flushRequestId, flushMetrics.attempt] })
    .returning({ id: flushMetrics.id });
}

/**
 * A metrics row's own columns with their defaults; `trigger` and `metrics` stay null when not given
 * (they default to the request's, which the caller or the commit statement fills in).
 */
export function flushMetricsValues(m: FlushMetricsWrite) {
  return {
    trigger: m.trigger ?? null,
    outcome: m.outcome,
    reason: m.reason ?? null,
    capturedBatches: m.capturedBatches ?? 0,
    processedBatches: m.processedBatches ?? 0,
    attemptedCalls: m.attemptedCalls ?? 0,
    dedupHits: m.dedupHits ?? 0,
    rawChars: m.rawChars ?? 0,
    summaryChars: m.summaryChars ?? 0,
    metrics: m.metrics ?? null,
    queueWaitMs: m.queueWaitMs === undefined ? null : Math.round(m.queueWaitMs),
    runMs: m.runMs === undefined ? null : Math.round(m.runMs),
    model: m.model ?? null,
    bodySource: m.bodySource ?? null,
    inputTokens: m.inputTokens ?? 0,
    outputTokens: m.outputTokens ?? 0,
    cost: m.cost ?? 0,
    fidelityScore: m.fidelityScore ?? null,
    workerId: m.workerId ?? null,
    summaryModels: m.summaryModels ?? null,
    summarizerSource: m.summarizerSource ?? null,
    summarizerNotice: m.summarizerNotice ?? null,
  };
}

/**
 * Older still-queued requests of the session were folded into this one by the queue's
 * keep-last-if-active deduplication: mark them so they do not look lost.
 */
export async function markCoalesced(tx: Tx | Db, request: FlushRequest): Promise<void> {
  const folded = await markCoalescedQuery(tx, request).returning({
    id: flushRequests.id,
    trigger: flushRequests.trigger,
    metrics: flushRequests.metrics,
  });
  if (folded.length === 0) return;
  // Every request is accounted: a coalesced one gets its own row (attempt 0: no worker ran it).
  await tx
    .insert(flushMetrics)
    .values(
      folded.map((f) => ({
        ...flushMetricsValues({ outcome: "coalesced", reason: `coalesced-into:${request.id}` }),
        tenantId: request.tenantId,
        sessionId: request.sessionId,
        flushRequestId: f.id,
        attempt: 0,
        trigger: f.trigger,
        metrics: (f.metrics as Record<string, unknown> | null) ?? {},
      })),
    )
    .onConflictDoNothing({ target: [flushMetrics.flushRequestId, flushMetrics.attempt] });
}

/** The update of `markCoalesced`, not started. */
export function markCoalescedQuery(tx: Tx | Db, request: FlushRequest) {
  return tx
    .update(flushRequests)
    .set({ status: "coalesced", coalescedInto: request.id, completedAt: sql`now()` })
    .where(
      and(
        eq(flushRequests.tenantId, request.tenantId),
        eq(flushRequests.sessionId, request.sessionId),
        eq(flushRequests.status, "queued"),
        ne(flushRequests.id, request.id),
        // The stored timestamp, not the JS Date read back: that one is cut to milliseconds, so a
        // request made in the same millisecond just before this one would not count as older.
        sql`${flushRequests.requestedAt} <= (select r.requested_at from flush_requests r where r.id = ${request.id}::uuid)`,
      ),
    );
}

export interface RecordFlushMetricsInput extends FlushMetricsWrite {
  tenantId: string;
  flushRequestId: string;
  attempt: number;
  /**
   * Settle the request: "failed" after the last attempt, "committed" for a flush that had nothing to
   * write (outcome `empty`). Omitted, the request stays queued (a retry follows).
   */
  settle?: "failed" | "committed";
}

export async function recordFlushMetrics(db: Db, input: RecordFlushMetricsInput): Promise<{ inserted: boolean }> {
  return db.transaction(async (tx) => {
    const [request] = await tx
      .select()
      .from(flushRequests)
      .where(and(eq(flushRequests.tenantId, input.tenantId), eq(flushRequests.id, input.flushRequestId)));
    if (!request) throw new NotFoundError("flush request", input.flushRequestId, `for tenant ${input.tenantId}`);
    const inserted = await insertFlushMetricsRow(tx, request, input.attempt, input);
    // A committed request stays committed: a late failure report of a stalled duplicate must not undo it.
    if (input.settle && request.status === "queued") {
      await tx
        .update(flushRequests)
        .set({ status: input.settle, completedAt: sql`now()` })
        .where(eq(flushRequests.id, request.id));
      await markCoalesced(tx, request);
    }
    return { inserted };
  });
}

/** The last flush attempts of one session, newest first, for the API's session status. */
export interface RecentFlush {
  flushRequestId: string;
  attempt: number;
  trigger: string;
  outcome: string;
  reason: string | null;
  capturedBatches: number;
  processedBatches: number;
  attemptedCalls: number;
  dedupHits: number;
  rawChars: number;
  summaryChars: number;
  model: string | null;
  bodySource: string | null;
  /** The model of each summary this attempt committed. */
  summaryModels: SummaryModel[] | null;
  summarizerSource: string | null;
  summarizerNotice: string | null;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  runMs: number | null;
  queueWaitMs: number | null;
  createdAt: Date;
}

export async function listRecentFlushes(db: Db, key: SessionKey, limit = 10): Promise<RecentFlush[]> {
  return db
    .select({
      flushRequestId: flushMetrics.flushRequestId,
      attempt: flushMetrics.attempt,
      trigger: flushMetrics.trigger,
      outcome: flushMetrics.outcome,
      reason: flushMetrics.reason,
      capturedBatches: flushMetrics.capturedBatches,
      processedBatches: flushMetrics.processedBatches,
      attemptedCalls: flushMetrics.attemptedCalls,
      dedupHits: flushMetrics.dedupHits,
      rawChars: flushMetrics.rawChars,
      summaryChars: flushMetrics.summaryChars,
      model: flushMetrics.model,
      bodySource: flushMetrics.bodySource,
      summaryModels: flushMetrics.summaryModels,
      summarizerSource: flushMetrics.summarizerSource,
      summarizerNotice: flushMetrics.summarizerNotice,
      inputTokens: flushMetrics.inputTokens,
      outputTokens: flushMetrics.outputTokens,
      cost: flushMetrics.cost,
      runMs: flushMetrics.runMs,
      queueWaitMs: flushMetrics.queueWaitMs,
      createdAt: flushMetrics.createdAt,
    })
    .from(flushMetrics)
    .where(and(eq(flushMetrics.tenantId, key.tenantId), eq(flushMetrics.sessionId, key.sessionId)))
    .orderBy(desc(flushMetrics.createdAt), desc(flushMetrics.attempt), desc(flushMetrics.id))
    .limit(Math.min(Math.max(limit, 1), 100));
}

export interface CacheEconomicsRow {
  /** The agent's model as its usage reported it; "unknown" when the client sent none. */
  model: string;
  flushes: number;
  expectedCacheWriteTokens: number;
  expectedCacheReadSavedTokens: number;
}

export async function cacheEconomicsByModel(db: Db, where: SQL | undefined): Promise<CacheEconomicsRow[]> {
  const num = (expr: SQL) => sql<number>`${expr}`.mapWith(Number);
  const model = sql<string>`coalesce(${flushMetrics.agentModel}, 'unknown')`;
  const rows = await db
    .select({
      model,
      flushes: num(sql`count(*)`),
      writes: num(sql`coalesce(sum(${flushMetrics.expectedCacheWriteTokens}), 0)`),
      saved: num(sql`coalesce(sum(${flushMetrics.expectedCacheReadSavedTokens}), 0)`),
    })
    .from(flushMetrics)
    .where(
      and(
        where,
        isNotNull(flushMetrics.expectedCacheWriteTokens),
        notInArray(flushMetrics.outcome, ["error", "empty"]),
      ),
    )
    .groupBy(model)
    .orderBy(model);
  return rows.map((r) => ({
    model: r.model,
    flushes: r.flushes,
    expectedCacheWriteTokens: r.writes,
    expectedCacheReadSavedTokens: r.saved,
  }));
}

export interface FlushWindowStats {
  byOutcome: Record<string, number>;
  total: number;
  dedupHits: number;
  attemptedCalls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  runMs: { avg: number | null; p95: number | null };
  queueWaitMs: { avg: number | null; p95: number | null };
}

/** The window aggregates of a tenant's flush attempts since `since` (fleet status). */
export async function tenantFlushWindow(db: Db, tenantId: string, since: Date): Promise<FlushWindowStats> {
  const num = (expr: SQL) => sql<number>`${expr}`.mapWith(Number);
  const numOrNull = (expr: SQL) => sql<number | null>`${expr}`.mapWith((v) => (v === null ? null : Number(v)));
  const inWindow = tenantWindow(tenantId, since);
  const [outcomes, agg] = await Promise.all([
    db
      .select({ outcome: flushMetrics.outcome, n: num(sql`count(*)`) })
      .from(flushMetrics)
      .where(inWindow)
      .groupBy(flushMetrics.outcome),
    db
      .select({
        hits: num(sql`coalesce(sum(${flushMetrics.dedupHits}), 0)`),
        attempted: num(sql`coalesce(sum(${flushMetrics.attemptedCalls}), 0)`),
        inputTokens: num(sql`coalesce(sum(${flushMetrics.inputTokens}), 0)`),
        outputTokens: num(sql`coalesce(sum(${flushMetrics.outputTokens}), 0)`),
        cost: num(sql`coalesce(sum(${flushMetrics.cost}), 0)`),
        runAvg: numOrNull(sql`avg(${flushMetrics.runMs})`),
        runP95: numOrNull(sql`percentile_cont(0.95) within group (order by ${flushMetrics.runMs})`),
        waitAvg: numOrNull(sql`avg(${flushMetrics.queueWaitMs})`),
        waitP95: numOrNull(sql`percentile_cont(0.95) within group (order by ${flushMetrics.queueWaitMs})`),
      })
      .from(flushMetrics)
      .where(inWindow),
  ]);
  const a = agg[0];
  return {
    byOutcome: Object.fromEntries(outcomes.map((o) => [o.outcome, o.n])),
    total: outcomes.reduce((sum, o) => sum + o.n, 0),
    dedupHits: a?.hits ?? 0,
    attemptedCalls: a?.attempted ?? 0,
    inputTokens: a?.inputTokens ?? 0,
    outputTokens: a?.outputTokens ?? 0,
    cost: a?.cost ?? 0,
    runMs: { avg: a?.runAvg ?? null, p95: a?.runP95 ?? null },
    queueWaitMs: { avg: a?.waitAvg ?? null, p95: a?.waitP95 ?? null },
  };
}

/** A tenant's attempts since `since` (reads the (tenant_id, created_at) index). */
export function tenantWindow(tenantId: string, since: Date): SQL | undefined {
  return and(eq(flushMetrics.tenantId, tenantId), gte(flushMetrics.createdAt, since));
}

/** A session's attempts. */
export function sessionScope(key: SessionKey): SQL | undefined {
  return and(eq(flushMetrics.tenantId, key.tenantId), eq(flushMetrics.sessionId, key.sessionId));
}

export interface LastFlush {
  flushRequestId: string;
  attempt: number;
  trigger: string;
  outcome: string;
  reason: string | null;
  createdAt: Date;
  runMs: number | null;
  queueWaitMs: number | null;
  /** The pre-flush context-metrics snapshot of that flush. */
  metrics: Record<string, unknown>;
}

/** A session's newest flush attempt, with the metrics snapshot it was requested with. */
export async function lastFlushAttempt(db: Db, key: SessionKey): Promise<LastFlush | null> {
  const [row] = await db
    .select({
      flushRequestId: flushMetrics.flushRequestId,
      attempt: flushMetrics.attempt,
      trigger: flushMetrics.trigger,
      outcome: flushMetrics.outcome,
      reason: flushMetrics.reason,
      createdAt: flushMetrics.createdAt,
      runMs: flushMetrics.runMs,
      queueWaitMs: flushMetrics.queueWaitMs,
      metrics: flushMetrics.metrics,
    })
    .from(flushMetrics)
    .where(sessionScope(key))
    .orderBy(desc(flushMetrics.createdAt), desc(flushMetrics.attempt), desc(flushMetrics.id))
    .limit(1);
  return row ?? null;
}
