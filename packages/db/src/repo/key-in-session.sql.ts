/**
 * SQL predicate shared by the flush reads: whether an occurrence key already has a record or a dedup
 * alias in a session (both tables are keyed by tenant, session and key). Arguments are SQL expressions.
 */
export const keyInSession = (tenant: string, session: string, key: string) => `(
    exists (select 1 from tool_call_records r where r.tenant_id = ${tenant} and r.session_id = ${session} and r.key = ${key})
    or exists (select 1 from dedup_aliases a where a.tenant_id = ${tenant} and a.session_id = ${session} and a.key = ${key}))`;
