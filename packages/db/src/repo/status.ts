/**
 * Status reports, composed from the per-table counts: a session's (GET /v1/sessions/:id/status:
 * counters, reclaim, the last flush and its context-metrics snapshot, diagnostics and summarizer
 * usage) and a tenant's fleet over the last N minutes (flush outcomes, dedup hit rate, summarizer
 * usage and latency, pending work). Cross-table by nature; every query it runs lives in its table's
 * module and reads an index that starts with (tenant_id, session_id) or (tenant_id, created_at).
 */
import type { Frontier } from "@condense/core";
import type { Db } from "../client.ts";
import type { CaptureStatus } from "../schema/index.ts";
import { captureCounts, tenantPendingCaptures } from "./captures.ts";
import { chainCount } from "./chains.ts";
import { aliasCount } from "./dedup-aliases.ts";
import { diagnosticCounts, tenantDiagnosticCounts } from "./diagnostics.ts";
import {
  cacheEconomicsByModel,
  lastFlushAttempt,
  sessionScope,
  tenantFlushWindow,
  tenantWindow,
  type CacheEconomicsRow,
  type LastFlush,
} from "./flush-metrics.ts";
import { queuedFlushRequestCount } from "./flush-requests.ts";
import { getFrontier } from "./frontiers.ts";
import { recoveryCount } from "./recoveries.ts";
import { getSession, tenantSessionCounts, type SessionKey, type SessionRow } from "./sessions.ts";
import { summaryCounts } from "./summaries.ts";
import { recordCounts } from "./tool-call-records.ts";

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
  /** Cache writes Condense's flushes cause against cache reads they save (expected), per agent model. */
  cacheEconomics: CacheEconomicsRow[];
}

/** Null when the session does not exist (for this tenant). */
export async function getSessionStatus(db: Db, key: SessionKey): Promise<SessionStatus | null> {
  const s = await getSession(db, key);
  if (!s) return null;
  const [captures, recorded, summarized, aliases, chains, frontier, diagnostics, recoveries, queued, last, economics] =
    await Promise.all([
      captureCounts(db, key),
      recordCounts(db, key),
      summaryCounts(db, key),
      aliasCount(db, key),
      chainCount(db, key),
      getFrontier(db, key),
      diagnosticCounts(db, key),
      recoveryCount(db, key),
      queuedFlushRequestCount(db, key),
      lastFlushAttempt(db, key),
      cacheEconomicsByModel(db, sessionScope(key)),
    ]);
  const { rawChars } = recorded;
  const summaryChars = summarized.chars;
  return {
    sessionId: s.sessionId,
    version: s.version,
    nextRef: s.nextRef,
    settings: s.settings,
    stats: s.stats,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastCaptureAt: s.lastCaptureAt,
    lastFlushAt: s.lastFlushAt,
    captures,
    records: recorded.records,
    summaries: summarized.summaries,
    aliases,
    chains,
    reclaim: { rawChars, summaryChars, reclaimedChars: Math.max(0, rawChars - summaryChars) },
    frontier,
    diagnostics,
    recoveries,
    queuedFlushRequests: queued,
    lastFlush: last,
    cacheEconomics: economics,
  };
}

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
  /** Render and chain diagnostics first reported in the window, per kind. */
  diagnostics: Record<string, number>;
  /** Cache writes Condense's flushes cause against cache reads they save (expected), per agent model. */
  cacheEconomics: CacheEconomicsRow[];
}

export async function fleetStatus(
  db: Db,
  input: { tenantId: string; windowMinutes?: number; now?: Date },
): Promise<FleetStatus> {
  const { tenantId } = input;
  const windowMinutes = input.windowMinutes ?? 60;
  const since = new Date((input.now ?? new Date()).getTime() - windowMinutes * 60_000);
  const [flushes, sessions, pendingCaptures, queued, recoveries, diagnostics, cacheEconomics] = await Promise.all([
    tenantFlushWindow(db, tenantId, since),
    tenantSessionCounts(db, tenantId, since),
    tenantPendingCaptures(db, tenantId),
    queuedFlushRequestCount(db, { tenantId }),
    recoveryCount(db, { tenantId, since }),
    tenantDiagnosticCounts(db, tenantId, since),
    cacheEconomicsByModel(db, tenantWindow(tenantId, since)),
  ]);
  const { dedupHits: hits, attemptedCalls } = flushes;
  return {
    windowMinutes,
    flushes: { total: flushes.total, byOutcome: flushes.byOutcome },
    dedup: { hits, attemptedCalls, hitRate: attemptedCalls > 0 ? hits / attemptedCalls : 0 },
    usage: { inputTokens: flushes.inputTokens, outputTokens: flushes.outputTokens, cost: flushes.cost },
    runMs: flushes.runMs,
    queueWaitMs: flushes.queueWaitMs,
    sessions,
    pendingCaptures,
    queuedFlushRequests: queued,
    recoveries,
    diagnostics,
    cacheEconomics,
  };
}
