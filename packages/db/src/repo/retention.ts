/**
 * Retention: delete what has served its purpose once it is older than the configured number of days.
 *  - captures that are settled (any status but `pending`): the state they fed lives in the record and
 *    summary tables; a pending capture is never deleted, whatever its age, because no flush has used it.
 *  - stored bodies (`tool_call_records.stored_body`, the full text of an oversized output) of sessions
 *    with no capture or update for N days: the record, its preview and its summary stay, so a recovery
 *    then answers with the preview.
 *  - flush_metrics rows (per-attempt telemetry) and recoveries (query hits) by their own timestamp.
 * A cross-table operation (captures, tool_call_records with sessions, flush_metrics, recoveries).
 * Deletes go in bounded chunks, each its own statement, so a first run on a large table never holds
 * long locks. Two workers running it at once do no harm: a row deleted by one is simply not counted
 * by the other.
 */
import { and, eq, inArray, lt, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../client.ts";
import { captures, flushMetrics, recoveries, sessions, toolCallRecords } from "../schema/index.ts";

/** Days to keep each kind; 0 keeps it forever. */
export interface RetentionPolicy {
  capturesDays: number;
  storedBodiesDays: number;
  flushMetricsDays: number;
  recoveriesDays: number;
}

export interface RetentionResult {
  captures: number;
  storedBodies: number;
  flushMetrics: number;
  recoveries: number;
}

const CHUNK = 5_000;

async function chunked(run: () => Promise<unknown[]>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = (await run()).length;
    total += n;
    if (n < CHUNK) return total;
  }
}

const cutoff = (days: number) => sql`now() - make_interval(days => ${days})`;

export async function runRetention(db: Db, policy: RetentionPolicy): Promise<RetentionResult> {
  const result: RetentionResult = { captures: 0, storedBodies: 0, flushMetrics: 0, recoveries: 0 };
  if (policy.capturesDays > 0) {
    const settledOld = () =>
      db
        .select({ seq: captures.seq })
        .from(captures)
        .where(and(ne(captures.status, "pending"), lt(captures.createdAt, cutoff(policy.capturesDays))))
        .limit(CHUNK);
    result.captures = await chunked(() =>
      db.delete(captures).where(inArray(captures.seq, settledOld())).returning({ seq: captures.seq }),
    );
  }
  if (policy.storedBodiesDays > 0) {
    const r2 = alias(toolCallRecords, "r2");
    const idle = sql`greatest(${sessions.updatedAt}, coalesce(${sessions.lastCaptureAt}, ${sessions.updatedAt}))`;
    const oldBodies = () =>
      db
        .select({ tenantId: r2.tenantId, sessionId: r2.sessionId, key: r2.key })
        .from(r2)
        .innerJoin(sessions, and(eq(sessions.tenantId, r2.tenantId), eq(sessions.sessionId, r2.sessionId)))
        .where(and(sql`${r2.storedBody} is not null`, lt(idle, cutoff(policy.storedBodiesDays))))
        .limit(CHUNK);
    result.storedBodies = await chunked(() =>
      db
        .update(toolCallRecords)
        .set({ storedBody: null })
        .where(
          sql`(${toolCallRecords.tenantId}, ${toolCallRecords.sessionId}, ${toolCallRecords.key}) in (${oldBodies()})`,
        )
        .returning({ key: toolCallRecords.key }),
    );
  }
  if (policy.flushMetricsDays > 0) {
    const old = () =>
      db
        .select({ id: flushMetrics.id })
        .from(flushMetrics)
        .where(lt(flushMetrics.createdAt, cutoff(policy.flushMetricsDays)))
        .limit(CHUNK);
    result.flushMetrics = await chunked(() =>
      db.delete(flushMetrics).where(inArray(flushMetrics.id, old())).returning({ id: flushMetrics.id }),
    );
  }
  if (policy.recoveriesDays > 0) {
    const old = () =>
      db
        .select({ id: recoveries.id })
        .from(recoveries)
        .where(lt(recoveries.at, cutoff(policy.recoveriesDays)))
        .limit(CHUNK);
    result.recoveries = await chunked(() =>
      db.delete(recoveries).where(inArray(recoveries.id, old())).returning({ id: recoveries.id }),
    );
  }
  return result;
}
