/**
 * What one round trip to Postgres and to Redis costs on this machine when the other side has been
 * idle for a while: the floor under every hop of a flush. A flush that waited 200 ms on its model,
 * or a request that arrives after a quiet spell, pays the "after idle" figure on each sequential
 * round trip, whatever the statement does (a halted vCPU and a sleeping server process must be woken).
 *
 * Per gap (0 = no pause, the three probes interleaved): p50 and p10 of `select 1`, of a committed one-row insert (a WAL flush
 * with the server's synchronous_commit setting), and of a Redis PING.
 */
import postgres from "postgres";
import { Redis } from "ioredis";
import { pct } from "./bench-stats.ts";

export const IDLE_GAPS_MS = [0, 1, 5, 20, 200] as const;

export interface GapLatency {
  gapMs: number;
  samples: number;
  selectP50: number;
  insertP50: number;
  pingP50: number;
  selectP10: number;
  pingP10: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `databaseUrl`: a scratch database the probe may create one table in (dropped with the database). */
export async function measureIdleLatency(
  databaseUrl: string,
  redisUrl: string,
  gaps: readonly number[] = IDLE_GAPS_MS,
): Promise<GapLatency[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await sql`create table if not exists bench_probe (id bigserial primary key, at timestamptz not null default now())`;
    await sql`select 1`;
    await sql`insert into bench_probe default values`;
    await redis.ping();
    const out: GapLatency[] = [];
    for (const gapMs of gaps) {
      const samples = gapMs >= 200 ? 25 : gapMs >= 20 ? 80 : 150;
      const select: number[] = [];
      const insert: number[] = [];
      const ping: number[] = [];
      for (let i = 0; i < samples; i++) {
        // Each kind after its own gap, so none of them rides on the wake-up another one paid for.
        if (gapMs) await sleep(gapMs);
        let t = performance.now();
        await sql`select 1`;
        select.push(performance.now() - t);
        if (gapMs) await sleep(gapMs);
        t = performance.now();
        await sql`insert into bench_probe default values`;
        insert.push(performance.now() - t);
        if (gapMs) await sleep(gapMs);
        t = performance.now();
        await redis.ping();
        ping.push(performance.now() - t);
      }
      out.push({
        gapMs,
        samples,
        selectP50: pct(select, 50),
        insertP50: pct(insert, 50),
        pingP50: pct(ping, 50),
        selectP10: pct(select, 10),
        pingP10: pct(ping, 10),
      });
    }
    return out;
  } finally {
    redis.disconnect();
    await sql.end({ timeout: 5 });
  }
}

export function printIdleLatency(rows: GapLatency[]): void {
  const f = (n: number) => n.toFixed(2);
  console.log(
    `${"idle gap".padEnd(10)} ${"n".padStart(4)} ${"select 1".padStart(9)} ${"insert+commit".padStart(14)} ${"redis PING".padStart(11)}   (ms, p50; p10 in brackets)`,
  );
  for (const r of rows) {
    console.log(
      `${(r.gapMs ? `${r.gapMs} ms` : "none").padEnd(10)} ${String(r.samples).padStart(4)} ${`${f(r.selectP50)} (${f(r.selectP10)})`.padStart(9)} ${f(r.insertP50).padStart(14)} ${`${f(r.pingP50)} (${f(r.pingP10)})`.padStart(11)}`,
    );
  }
}
