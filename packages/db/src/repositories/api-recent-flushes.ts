/** The last flush attempts of one session, newest first, for the API's session status. */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { flushMetrics } from "../schema/index.ts";
import type { SessionKey } from "../repo/sessions.ts";

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
      inputTokens: flushMetrics.inputTokens,
      outputTokens: flushMetrics.outputTokens,
      cost: flushMetrics.cost,
      runMs: flushMetrics.runMs,
      queueWaitMs: flushMetrics.queueWaitMs,
      createdAt: flushMetrics.createdAt,
    })
    .from(flushMetrics)
    .where(and(eq(flushMetrics.tenantId, key.tenantId), eq(flushMetrics.sessionId, key.sessionId)))
    .orderBy(desc(flushMetrics.createdAt), desc(flushMetrics.id))
    .limit(Math.min(Math.max(limit, 1), 100));
}
