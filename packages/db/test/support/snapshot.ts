/** Every row of every table, in a stable order: "identical rows" comparisons for idempotence tests. */
import { sql } from "drizzle-orm";
import type { Db } from "../../src/index.ts";

const TABLES: [string, string][] = [
  ["tenants", "id"],
  ["api_keys", "id"],
  ["sessions", "tenant_id, session_id"],
  ["captures", "seq"],
  ["tool_call_records", "tenant_id, session_id, key"],
  ["summaries", "tenant_id, session_id, id"],
  ["dedup_aliases", "tenant_id, session_id, key"],
  ["frontiers", "tenant_id, session_id"],
  ["chains", "tenant_id, session_id, start_user_timestamp"],
  ["flush_requests", "id"],
  ["flush_metrics", "id"],
  ["diagnostics", "id"],
  ["recoveries", "id"],
];

export async function snapshotRows(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of TABLES) {
    const res = await db.execute(sql.raw(`select to_jsonb(t) as row from "${table}" t order by ${order}`));
    const rows = Array.isArray(res) ? res : (res as unknown as { rows: unknown[] }).rows;
    out[table] = rows.map((r) => (r as { row: unknown }).row);
  }
  return out;
}
