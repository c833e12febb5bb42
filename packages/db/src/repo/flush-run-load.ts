/**
 * A flush run's first read, in ONE statement: the request (with its last recorded attempt and ref
 * reservation) and the session's pending captures up to its cursor (with the already-indexed flags,
 * the content-hash canonicals, and the session's commit_seq and stats, all from one snapshot). The
 * request rides on the first capture row as its jsonb image, so it is sent and parsed once.
 */
import type { Db } from "../client.ts";
import { rawQuery } from "../raw-query.ts";
import { pendingForFlushSql, pendingFromRows, type PendingForFlush } from "./captures.ts";
import { requestForRunFragment, requestForRunFromRow, type FlushRequestForRun } from "./flush-requests.ts";

export interface FlushRunLoad {
  /** Null when the request does not exist for this tenant (or its session does not exist). */
  loaded: FlushRequestForRun | null;
  pending: PendingForFlush;
}

const FLUSH_RUN_SQL = pendingForFlushSql(`,
  case when row_number() over (order by c.seq) = 1 then (select to_jsonb(q) from (${requestForRunFragment("$1", "$3")}) q) end as request`);

export async function loadFlushRun(db: Db, input: { tenantId: string; sessionId: string; flushRequestId: string; queueAttempt: number }): Promise<FlushRunLoad> {
  const rows = await rawQuery(db, FLUSH_RUN_SQL, [input.tenantId, input.sessionId, input.flushRequestId]);
  const request = rows[0]?.request as Record<string, unknown> | null | undefined;
  return { loaded: request ? requestForRunFromRow(request, input.queueAttempt) : null, pending: pendingFromRows(rows) };
}
