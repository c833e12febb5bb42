/**
 * Flush-metrics rows: one per worker attempt, keyed (flush_request_id, attempt) so a re-delivered
 * attempt cannot write twice. commitFlush writes the row of a committing attempt in its own
 * transaction; `recordFlushMetrics` writes the others (errors, empty flushes).
 */
import { and, eq, lte, ne, sql } from "drizzle-orm";
import type { FlushOutcome } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { flushMetrics, flushRequests } from "../schema/index.ts";
import type { FlushRequest } from "./flush-requests.ts";

export interface FlushMetricsWrite {
  outcome: FlushOutcome;
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
}

/** Insert the attempt's row; false when this attempt already has one. */
export async function insertFlushMetricsRow(tx: Tx | Db, request: FlushRequest, attempt: number, m: FlushMetricsWrite): Promise<boolean> {
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
  };
}

/**
 * Older still-queued requests of the session were folded into this one by the queue's
 * keep-last-if-active deduplication: mark them so they do not look lost.
 */
export async function markCoalesced(tx: Tx | Db, request: FlushRequest): Promise<void> {
  await markCoalescedQuery(tx, request);
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
        lte(flushRequests.requestedAt, request.requestedAt),
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
    if (!request) throw new Error(`flush request ${input.flushRequestId} not found for tenant ${input.tenantId}`);
    const inserted = await insertFlushMetricsRow(tx, request, input.attempt, input);
    // A committed request stays committed: a late failure report of a stalled duplicate must not undo it.
    if (input.settle && request.status === "queued") {
      await tx.update(flushRequests).set({ status: input.settle, completedAt: sql`now()` }).where(eq(flushRequests.id, request.id));
      await markCoalesced(tx, request);
    }
    return { inserted };
  });
}
