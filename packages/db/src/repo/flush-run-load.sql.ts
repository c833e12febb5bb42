/**
 * The flush run's first read (flush-run-load.ts), one statement with named parameters
 * (statement.ts). One row per pending capture of the session up to the request's cursor (or one row
 * of nulls when there is none), each with the session's commit_seq and stats; per capture whether
 * its key is already indexed (a record or a dedup alias: the frontier trim) and its content-hash
 * canonicals (the first non-backfilled record with the hash in the session, and in the tenant with
 * whether that key is already present in this session). The request, with its last recorded attempt
 * and ref reservation, rides on the first row as its jsonb image, so it is sent and parsed once.
 */
import { statement } from "../statement.ts";

interface FlushRunParams {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
}

export const FLUSH_RUN = statement<FlushRunParams>(`
select s.commit_seq, s.stats, c.seq, c.occurrence_key, c.capture_id, c.batch_index, c.call_index, c.tool_call_id, c.tool_name, c.args,
  c.result_text, c.is_error, c.result_timestamp, c.content_hash, c.turn_index, c.batch_timestamp, c.assistant_text, c.user_turn_group,
  (c.seq is not null and (
    exists (select 1 from tool_call_records r where r.tenant_id = c.tenant_id and r.session_id = c.session_id and r.key = c.occurrence_key)
    or exists (select 1 from dedup_aliases a where a.tenant_id = c.tenant_id and a.session_id = c.session_id and a.key = c.occurrence_key)
  )) as indexed,
  sc.key as canon_session_key, tc.key as canon_tenant_key, tc.session_id as canon_tenant_session,
  (tc.key is not null and (
    exists (select 1 from tool_call_records r where r.tenant_id = :tenantId and r.session_id = :sessionId and r.key = tc.key)
    or exists (select 1 from dedup_aliases a where a.tenant_id = :tenantId and a.session_id = :sessionId and a.key = tc.key)
  )) as canon_tenant_present,
  case when row_number() over (order by c.seq) = 1 then (select to_jsonb(q) from (
    select id, tenant_id, session_id, trigger, metrics, chains, settings, cursor, status, requested_at, completed_at,
      committed_version, result, chains_result, coalesced_into, ref_reservation,
      (select max(m.attempt) from flush_metrics m where m.flush_request_id = flush_requests.id) as last_attempt
    from flush_requests where tenant_id = :tenantId and id = :flushRequestId::uuid) q) end as request
from sessions s
left join captures c on c.tenant_id = s.tenant_id and c.session_id = s.session_id and c.status = 'pending'
  and c.seq <= (select f.cursor from flush_requests f where f.tenant_id = :tenantId and f.id = :flushRequestId::uuid)
left join lateral (
  select t.key from tool_call_records t
  where t.tenant_id = :tenantId and t.session_id = :sessionId and t.content_hash = c.content_hash and not t.backfilled
  order by t.seq limit 1) sc on true
left join lateral (
  select t.key, t.session_id from tool_call_records t
  where t.tenant_id = :tenantId and t.content_hash = c.content_hash and not t.backfilled
  order by t.seq limit 1) tc on true
where s.tenant_id = :tenantId and s.session_id = :sessionId
order by c.seq`);
