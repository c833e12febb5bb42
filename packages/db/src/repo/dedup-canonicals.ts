/**
 * Content-hash canonicals for pre-flush dedup (CAP-FLUSH-3): for each hash, the first record ever
 * indexed with it (backfilled records never seed canonicals). Scope "session" looks in one session,
 * scope "tenant" (sessionId null) across all sessions of the tenant, never beyond it.
 */
import type { ToolCallRecord } from "@condense/core";
import type { Db } from "../client.ts";
import { rawQuery } from "../raw-query.ts";
import { chunks } from "./bulk-upsert.ts";
import { keyInSession } from "./key-in-session.sql.ts";
import { recordFromRawRow } from "./state-rows.ts";

export interface CanonicalRecord {
  sessionId: string;
  record: ToolCallRecord;
  /** Full body for stored (oversized) records, so a tenant-scope hit can be copied into another session. */
  storedBody: string | null;
  /**
   * With `presentIn`: whether the canonical's key already has a record or an alias in that session
   * (a tenant-scope canonical copied there by an earlier flush), read in the same statement.
   */
  presentInSession?: boolean;
}

export async function findCanonicalByHash(
  db: Db,
  input: { tenantId: string; sessionId: string | null; hashes: string[]; presentIn?: string },
): Promise<Map<string, CanonicalRecord>> {
  const out = new Map<string, CanonicalRecord>();
  const presentIn = input.presentIn;
  for (const chunk of chunks([...new Set(input.hashes)], 500)) {
    const rows = input.sessionId === null
      ? await rawQuery(db, TENANT_CANONICALS_SQL, [input.tenantId, chunk, presentIn ?? null])
      : await rawQuery(db, SESSION_CANONICALS_SQL, [input.tenantId, input.sessionId, chunk, presentIn ?? null]);
    for (const r of rows) {
      out.set(r.content_hash as string, {
        sessionId: r.session_id as string,
        record: recordFromRawRow(r),
        storedBody: (r.stored_body as string | null) ?? null,
        ...(presentIn !== undefined ? { presentInSession: r.present_in_session === true } : {}),
      });
    }
  }
  return out;
}

const CANONICAL_COLUMNS = `t.session_id, t.key, t.tool_call_id, t.tool_name, t.args, t.result_text, t.is_error, t.turn_index, t.batch_timestamp,
  t.result_timestamp, t.short_ref, t.content_hash, t.stored_bytes, t.stored_preview, t.stored_body, t.summary_id, t.backfilled`;

/** Whether the canonical's key already has a record or an alias in session $P (null: not asked). */
const presentIn = (p: string) => `(case when ${p}::text is null then null else ${keyInSession("t.tenant_id", `${p}::text`, "t.key")} end) as present_in_session`;

// Fixed texts (raw-query.ts), one per scope so each keeps its own index plan.
const SESSION_CANONICALS_SQL = `select distinct on (t.content_hash) ${CANONICAL_COLUMNS}, ${presentIn("$4")}
  from tool_call_records t
  where t.tenant_id = $1 and t.session_id = $2 and t.content_hash is not null and not t.backfilled and t.content_hash = any($3::text[])
  order by t.content_hash, t.seq`;

const TENANT_CANONICALS_SQL = `select distinct on (t.content_hash) ${CANONICAL_COLUMNS}, ${presentIn("$3")}
  from tool_call_records t
  where t.tenant_id = $1 and t.content_hash is not null and not t.backfilled and t.content_hash = any($2::text[])
  order by t.content_hash, t.seq`;
