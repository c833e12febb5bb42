/**
 * Normalized dumps of the state tables: "the retried run left the same rows as a clean run".
 * Timestamps, worker ids, attempt numbers, durations and surrogate sequence numbers are dropped;
 * session ids can be mapped so two sessions of one database compare with each other.
 */
import { sql } from "drizzle-orm";
import type { Db } from "@condense/db";

const TABLES: [string, string][] = [
  ["sessions", "tenant_id, session_id"],
  ["captures", "tenant_id, session_id, occurrence_key"],
  ["tool_call_records", "tenant_id, session_id, key"],
  ["summaries", "tenant_id, session_id, id"],
  ["dedup_aliases", "tenant_id, session_id, key"],
  ["frontiers", "tenant_id, session_id"],
  ["chains", "tenant_id, session_id, start_user_timestamp"],
  ["diagnostics", "tenant_id, session_id, kind, dedup_key"],
  ["flush_requests", "tenant_id, session_id, requested_at"],
  ["flush_metrics", "tenant_id, session_id, flush_request_id, attempt"],
];

const VOLATILE = new Set([
  "seq",
  "id",
  "created_at",
  "updated_at",
  "last_capture_at",
  "last_flush_at",
  "requested_at",
  "completed_at",
  "at",
  "worker_id",
  "attempt",
  "run_ms",
  "queue_wait_ms",
  "compressed_at",
  "cursor",
  "settled_by",
  "flush_request_id",
  "coalesced_into",
  "capture_id",
  // summary ids are derived from volatile request ids (the summaries table drops its id above)
  "summaryId",
]);

function normalize(value: unknown, renames: Map<string, string>): unknown {
  if (typeof value === "string") {
    let s = value;
    for (const [from, to] of renames) s = s.split(from).join(to);
    return s;
  }
  if (Array.isArray(value)) return value.map((v) => normalize(v, renames));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      if (VOLATILE.has(k)) continue;
      out[k] = normalize((value as Record<string, unknown>)[k], renames);
    }
    return out;
  }
  return value;
}

export async function dumpRows(
  db: Db,
  filter: { tenantId?: string; sessionId?: string } = {},
  renames: Record<string, string> = {},
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  const map = new Map(Object.entries(renames));
  for (const [table, order] of TABLES) {
    const where = [
      filter.tenantId ? sql`t.tenant_id = ${filter.tenantId}` : undefined,
      filter.sessionId ? sql`t.session_id = ${filter.sessionId}` : undefined,
    ].filter(Boolean);
    const cond = where.length ? sql` where ${sql.join(where as ReturnType<typeof sql>[], sql` and `)}` : sql``;
    const res = await db.execute(
      sql`select to_jsonb(t) as row from ${sql.raw(`"${table}"`)} t${cond} order by ${sql.raw(order)}`,
    );
    const rows = Array.isArray(res) ? res : (res as unknown as { rows: unknown[] }).rows;
    out[table] = rows.map((r) => normalize((r as { row: unknown }).row, map));
  }
  return out;
}
