/** SQL checks over a whole fleet database: refs minted once, capture outcomes, request states. */
import postgres from "postgres";

export async function withSql<T>(url: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Refs given to more than one key in a session: over committed records and over every reservation. */
export async function refsMintedTwice(url: string): Promise<unknown[]> {
  return withSql(url, async (sql) => {
    const records =
      await sql`select tenant_id, session_id, short_ref, count(*)::int n from tool_call_records where short_ref is not null group by 1,2,3 having count(*) > 1`;
    const reservations = await sql`
      select tenant_id, session_id, r.value as ref, count(distinct r.key)::int n
      from flush_requests, jsonb_each_text(coalesce(ref_reservation, '{}'::jsonb)) r
      group by 1,2,3 having count(distinct r.key) > 1`;
    // A committed record's ref must be the one its reservation (if any) gave it, never another key's.
    const crossed = await sql`
      select t.tenant_id, t.session_id, t.key, t.short_ref from tool_call_records t
      where t.short_ref is not null and exists (
        select 1 from flush_requests f, jsonb_each_text(coalesce(f.ref_reservation, '{}'::jsonb)) r
        where f.tenant_id = t.tenant_id and f.session_id = t.session_id and r.value = t.short_ref and r.key <> t.key)`;
    return [...records, ...reservations, ...crossed];
  });
}

export async function captureOutcomes(url: string): Promise<{ status: string; reasonMissing: number; n: number }[]> {
  return withSql(url, async (sql) => {
    const rows =
      await sql`select status, sum(case when status in ('pending','skipped','deduped') and status_reason is null then 1 else 0 end)::int reason_missing, count(*)::int n from captures group by status order by status`;
    return rows.map((r) => ({
      status: r.status as string,
      reasonMissing: r.reason_missing as number,
      n: r.n as number,
    }));
  });
}

export async function requestStates(url: string): Promise<Record<string, number>> {
  return withSql(url, async (sql) => {
    const rows = await sql`select status, count(*)::int n from flush_requests group by status`;
    return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
  });
}

/** Ids of the requests made before `requestedBeforeMs` (epoch ms) that are still queued (not committed, coalesced or failed) right now. */
export async function queuedRequestIds(url: string, requestedBeforeMs: number): Promise<string[]> {
  return withSql(url, async (sql) =>
    (
      await sql`select id from flush_requests where status = 'queued' and requested_at < ${new Date(requestedBeforeMs)}`
    ).map((r) => r.id as string),
  );
}

/** How many of `ids` reached a final status in a transaction that began after `sinceMs` (epoch ms). */
export async function finishedAfter(url: string, ids: string[], sinceMs: number): Promise<number> {
  if (!ids.length) return 0;
  return withSql(
    url,
    async (sql) =>
      (
        await sql`
    select count(*)::int n from flush_requests
    where id = any(${ids}::uuid[]) and status <> 'queued' and completed_at > to_timestamp(${sinceMs / 1000})`
      )[0]!.n as number,
  );
}

/** One line per table a fault suite cares about, for a timeout's diagnostics; never throws. */
export async function fleetSnapshot(url: string): Promise<string> {
  const read = withSql(url, async (sql) => {
    const requests = await sql`select status, count(*)::int n from flush_requests group by 1 order by 1`;
    const captures = await sql`select status, count(*)::int n from captures group by 1 order by 1`;
    const metrics =
      await sql`select outcome, coalesce(reason, '') reason, count(*)::int n from flush_metrics group by 1, 2 order by 3 desc limit 10`;
    const fmt = (rows: readonly Record<string, unknown>[]) =>
      rows.map((r) => Object.values(r).join(":")).join(" ") || "(none)";
    return `flush_requests ${fmt(requests)}\ncaptures ${fmt(captures)}\nflush_metrics ${fmt(metrics)}`;
  });
  const timeout = new Promise<string>((r) => setTimeout(() => r("(database did not answer in 5 s)"), 5000).unref());
  return Promise.race([read, timeout]).catch((e: unknown) => `(database unreadable: ${String(e)})`);
}
