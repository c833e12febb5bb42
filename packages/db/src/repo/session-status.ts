/**
 * Per-session status for the API: counters, reclaim, the last flush and its context-metrics
 * snapshot, diagnostics counters and summarizer usage. One round of small aggregate queries, each
 * on an index that starts with (tenant_id, session_id).
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Frontier } from "@condense/core";
import type { Db } from "../client.ts";
import { captures, chains, dedupAliases, diagnostics, flushMetrics, flushRequests, frontiers, recoveries, sessions, summaries, toolCallRecords, type CaptureStatus } from "../schema/index.ts";
import type { SessionKey, SessionRow } from "./sessions.ts";
import { frontierFromRow } from "./state-rows.ts";

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

export interface SessionStatus extends Omit<SessionRow, "tenantId" | "nextBlock"> {
  captures: Record<CaptureStatus, number> & { total: number; maxSeq: number };
  records: number;
  summaries: number;
  aliases: number;
  chains: number;
  /** Raw characters condensed (records) against the summary text that replaced them. */
  reclaim: { rawChars: number; summaryChars: number; reclaimedChars: number };
  frontier: Frontier | null;
  diagnostics: Record<string, number>;
  recoveries: number;
  queuedFlushRequests: number;
  lastFlush: LastFlush | null;
}

export async function getSessionStatus(db: Db, key: SessionKey): Promise<SessionStatus | null> {
  const { tenantId, sessionId } = key;
  const [s] = await db.select().from(sessions).where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)));
  if (!s) return null;
  const scoped = <T extends { tenantId: any; sessionId: any }>(t: T) => and(eq(t.tenantId, tenantId), eq(t.sessionId, sessionId));
  const int = (expr: ReturnType<typeof sql>) => sql<number>`${expr}`.mapWith(Number);

  const [captureRows, recordAgg, summaryAgg, aliasAgg, chainAgg, frontierRows, diagRows, recoveryAgg, queuedAgg, lastRows] = await Promise.all([
    db.select({ status: captures.status, n: int(sql`count(*)`), maxSeq: int(sql`coalesce(max(${captures.seq}), 0)`) }).from(captures).where(scoped(captures)).groupBy(captures.status),
    db
      .select({
        n: int(sql`count(*)`),
        raw: int(sql`coalesce(sum(length(${toolCallRecords.resultText}) + coalesce(${toolCallRecords.storedBytes}, 0)), 0)`),
      })
      .from(toolCallRecords)
      .where(scoped(toolCallRecords)),
    db.select({ n: int(sql`count(*)`), chars: int(sql`coalesce(sum(length(${summaries.text})), 0)`) }).from(summaries).where(scoped(summaries)),
    db.select({ n: int(sql`count(*)`) }).from(dedupAliases).where(scoped(dedupAliases)),
    db.select({ n: int(sql`count(*)`) }).from(chains).where(scoped(chains)),
    db.select().from(frontiers).where(scoped(frontiers)),
    db.select({ kind: diagnostics.kind, n: int(sql`count(*)`) }).from(diagnostics).where(scoped(diagnostics)).groupBy(diagnostics.kind),
    db.select({ n: int(sql`count(*)`) }).from(recoveries).where(scoped(recoveries)),
    db.select({ n: int(sql`count(*)`) }).from(flushRequests).where(and(scoped(flushRequests), eq(flushRequests.status, "queued"))),
    db.select().from(flushMetrics).where(scoped(flushMetrics)).orderBy(desc(flushMetrics.createdAt), desc(flushMetrics.id)).limit(1),
  ]);

  const counts = { pending: 0, summarized: 0, skipped: 0, deduped: 0, stored: 0, total: 0, maxSeq: 0 };
  for (const r of captureRows) {
    counts[r.status] = r.n;
    counts.total += r.n;
    counts.maxSeq = Math.max(counts.maxSeq, r.maxSeq);
  }
  const rawChars = recordAgg[0]?.raw ?? 0;
  const summaryChars = summaryAgg[0]?.chars ?? 0;
  const last = lastRows[0];
  const f = frontierRows[0];
  return {
    sessionId,
    version: s.version,
    nextRef: s.nextRef,
    settings: s.settings,
    stats: s.stats,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastCaptureAt: s.lastCaptureAt,
    lastFlushAt: s.lastFlushAt,
    captures: counts,
    records: recordAgg[0]?.n ?? 0,
    summaries: summaryAgg[0]?.n ?? 0,
    aliases: aliasAgg[0]?.n ?? 0,
    chains: chainAgg[0]?.n ?? 0,
    reclaim: { rawChars, summaryChars, reclaimedChars: Math.max(0, rawChars - summaryChars) },
    frontier: f ? frontierFromRow(f) : null,
    diagnostics: Object.fromEntries(diagRows.map((d) => [d.kind, d.n])),
    recoveries: recoveryAgg[0]?.n ?? 0,
    queuedFlushRequests: queuedAgg[0]?.n ?? 0,
    lastFlush: last
      ? {
          flushRequestId: last.flushRequestId,
          attempt: last.attempt,
          trigger: last.trigger,
          outcome: last.outcome,
          reason: last.reason,
          createdAt: last.createdAt,
          runMs: last.runMs,
          queueWaitMs: last.queueWaitMs,
          metrics: last.metrics,
        }
      : null,
  };
}
