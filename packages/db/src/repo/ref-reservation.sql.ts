import { statement } from "../statement.ts";

interface ReserveKnownParams {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  count: number;
  known: string;
  fresh: string;
}

/**
 * The fast path of ref-reservation.ts, one statement (statement.ts: named parameters): advance the
 * session counter by :count and write refs for the :fresh keys (a json array), on condition that the
 * request's reservation is still exactly :known (a json object).
 *
 * It commits without waiting for its WAL flush (synchronous_commit off for this statement's own
 * transaction only). Safe because nothing durable depends on a reservation alone: the refs reach
 * records and summaries only through a later flush commit, which is synchronous and flushes the WAL
 * up to itself, this reservation included. A reservation lost to a database crash before that commit
 * is as if it never happened, and the retried run reserves again.
 */
export const RESERVE_KNOWN = statement<ReserveKnownParams>(`
with async as (
  select set_config('synchronous_commit', 'off', true) as v
), s as (
  update sessions set next_ref = next_ref + :count::integer, updated_at = now()
  where tenant_id = :tenantId and session_id = :sessionId
    and exists (select 1 from async)
    and exists (select 1 from flush_requests where id = :flushRequestId::uuid and tenant_id = :tenantId and session_id = :sessionId
                and coalesce(ref_reservation, '{}'::jsonb) = :known::jsonb)
  returning next_ref - :count::integer as first
), r as (
  update flush_requests fr
  set ref_reservation = coalesce(fr.ref_reservation, '{}'::jsonb) || (
    select jsonb_object_agg(k.key, 't' || (s.first + k.ord - 1)) from s, jsonb_array_elements_text(:fresh::jsonb) with ordinality as k(key, ord))
  where fr.id = :flushRequestId::uuid and coalesce(fr.ref_reservation, '{}'::jsonb) = :known::jsonb and exists (select 1 from s)
  returning fr.ref_reservation
)
select (select first from s) as first, (select ref_reservation from r) as reservation`);
