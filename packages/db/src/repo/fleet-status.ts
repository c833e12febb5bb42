/**
 * Fleet status of one tenant over the last N minutes: flush outcomes, dedup hit rate, summarizer
 * usage and latency, pending work. Reads flush_metrics through its (tenant_id, created_at) index.
 */
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { captures, flushMetrics, flushRequests, recoveries, sessions } from "../schema/index.ts";

export interface FleetStatus {
  windowMinutes: number;
  flushes: { total: number; byOutcome: Record<string, number> };
  dedup: { hits: number; attemptedCalls: number; hitRate: number };
  usage: { inputTokens: number; outputTokens: number; cost: number };
  runMs: { avg: number | null; p95: number | null };
  queueWaitMs: { avg: number | null; p95: number | null };
  sessions: { total: number; active: number };
  pendingCaptures: number;
  queuedFlushRequests: number;
  recoveries: number;
}

export async function fleetStatus(db: Db, input: { tenantId: string; windowMinutes?: number; now?: Date }): Promise<FleetStatus> {
  const windowMinutes = input.windowMinutes ?? 60;
  const since = new Date((input.now ?? new Date()).getTime() - windowMinutes * 60_000);
  const num = (expr: ReturnType<typeof sql>) => sql<number>`${expr}`.mapWith(Number);
  const numOrNull = (expr: ReturnType<typeof sql>) => sql<number | null>`${expr}`.mapWith((v) => (v === null ? null : Number(v)));
  const inWindow = and(eq(flushMetrics.tenantId, input.tenantId), gte(flushMetrics.createdAt, since));

  const [outcomes, agg, sessionAgg, pendingAgg, queuedAgg, recoveryAgg] = await Promise.all([
    db.select({ outcome: flushMetrics.outcome, n: num(sql`count(*)`) }).from(flushMetrics).where(inWindow).groupBy(flushMetrics.outcome),
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
    db
      .select({ total: num(sql`count(*)`), active: num(sql`count(*) filter (where ${sessions.updatedAt} >= ${since.toISOString()}::timestamptz)`) })
      .from(sessions)
      .where(eq(sessions.tenantId, input.tenantId)),
    db.select({ n: num(sql`count(*)`) }).from(captures).where(and(eq(captures.tenantId, input.tenantId), eq(captures.status, "pending"))),
    db.select({ n: num(sql`count(*)`) }).from(flushRequests).where(and(eq(flushRequests.tenantId, input.tenantId), eq(flushRequests.status, "queued"))),
    db.select({ n: num(sql`count(*)`) }).from(recoveries).where(and(eq(recoveries.tenantId, input.tenantId), gte(recoveries.at, since))),
  ]);
  const a = agg[0];
  const byOutcome = Object.fromEntries(outcomes.map((o) => [o.outcome, o.n]));
  const attempted = a?.attempted ?? 0;
  return {
    windowMinutes,
    flushes: { total: outcomes.reduce((s, o) => s + o.n, 0), byOutcome },
    dedup: { hits: a?.hits ?? 0, attemptedCalls: attempted, hitRate: attempted > 0 ? (a?.hits ?? 0) / attempted : 0 },
    usage: { inputTokens: a?.inputTokens ?? 0, outputTokens: a?.outputTokens ?? 0, cost: a?.cost ?? 0 },
    runMs: { avg: a?.runAvg ?? null, p95: a?.runP95 ?? null },
    queueWaitMs: { avg: a?.waitAvg ?? null, p95: a?.waitP95 ?? null },
    sessions: { total: sessionAgg[0]?.total ?? 0, active: sessionAgg[0]?.active ?? 0 },
    pendingCaptures: pendingAgg[0]?.n ?? 0,
    queuedFlushRequests: queuedAgg[0]?.n ?? 0,
    recoveries: recoveryAgg[0]?.n ?? 0,
  };
}
