/**
 * The content-hash canonical lookups of tool-call-records.ts (statement.ts: named parameters, fixed
 * text), one per scope so each keeps its own index plan (tool_call_records_session_hash_idx,
 * tool_call_records_tenant_hash_idx). They run for every flush with hashed captures. `:presentIn`
 * (a session id, or null) asks whether the canonical's key already has a record or a dedup alias in
 * that session (a tenant-scope canonical copied there by an earlier flush).
 */
import { statement } from "../statement.ts";

interface SessionCanonicalsParams {
  tenantId: string;
  sessionId: string;
  hashes: string[];
  presentIn: string | null;
}

export const SESSION_CANONICALS = statement<SessionCanonicalsParams>(`
select distinct on (t.content_hash) t.session_id, t.key, t.tool_call_id, t.tool_name, t.args, t.result_text, t.is_error,
  t.turn_index, t.batch_timestamp, t.result_timestamp, t.short_ref, t.content_hash, t.stored_bytes, t.stored_preview,
  t.stored_body, t.summary_id, t.backfilled,
  (case when :presentIn::text is null then null else (
    exists (select 1 from tool_call_records r where r.tenant_id = t.tenant_id and r.session_id = :presentIn::text and r.key = t.key)
    or exists (select 1 from dedup_aliases a where a.tenant_id = t.tenant_id and a.session_id = :presentIn::text and a.key = t.key)
  ) end) as present_in_session
from tool_call_records t
where t.tenant_id = :tenantId and t.session_id = :sessionId and t.content_hash is not null and not t.backfilled
  and t.content_hash = any(:hashes::text[])
order by t.content_hash, t.seq`);

interface TenantCanonicalsParams {
  tenantId: string;
  hashes: string[];
  presentIn: string | null;
}

export const TENANT_CANONICALS = statement<TenantCanonicalsParams>(`
select distinct on (t.content_hash) t.session_id, t.key, t.tool_call_id, t.tool_name, t.args, t.result_text, t.is_error,
  t.turn_index, t.batch_timestamp, t.result_timestamp, t.short_ref, t.content_hash, t.stored_bytes, t.stored_preview,
  t.stored_body, t.summary_id, t.backfilled,
  (case when :presentIn::text is null then null else (
    exists (select 1 from tool_call_records r where r.tenant_id = t.tenant_id and r.session_id = :presentIn::text and r.key = t.key)
    or exists (select 1 from dedup_aliases a where a.tenant_id = t.tenant_id and a.session_id = :presentIn::text and a.key = t.key)
  ) end) as present_in_session
from tool_call_records t
where t.tenant_id = :tenantId and t.content_hash is not null and not t.backfilled and t.content_hash = any(:hashes::text[])
order by t.content_hash, t.seq`);
