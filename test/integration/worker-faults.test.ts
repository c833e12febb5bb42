/**
 * Broker and database faults under load: a private Redis (AOF on, random port) is restarted in the
 * middle of a run, and separately a throwaway Postgres cluster (initdb + pg_ctl, random port) is
 * restarted. Acknowledged captures are never lost and the system finishes every flush request by
 * itself (reconnects, BullMQ retries, and the requeue sweeper for jobs that could not be enqueued).
 * The shared Redis on 6379 and the shared Postgres on 5432 are never touched.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDb, ensureTenant, migrateDb, type DbHandle } from "@condense/db";
import { condenseJobs, createBullmqQueue, type BullmqJobQueue, type CondenseJobs } from "@condense/queue";
import type { CapturedBatch } from "@condense/core";
import { captureOutcomes, refsMintedTwice, requestStates, withSql } from "./support/fleet-checks.ts";
import { captureBatches, requestAndEnqueue, scratchDatabase, spawnWorker, stopWorker, waitUntil, type WorkerProc } from "./support/worker-fleet.ts";

const pgAdmin = inject("databaseUrl").startsWith("postgres") ? inject("databaseUrl") : "";
const sharedRedis = inject("redisUrl");
const hasBinary = (b: string) => { try { execFileSync("which", [b], { stdio: "ignore" }); return true; } catch { return false; } };
const TENANT = "faults";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

function batches(s: number, r: number): CapturedBatch[] {
  const t = 1_700_000_000_000 + r * 10_000;
  return [{ turnIndex: r, timestamp: t, assistantText: `r${r}`, toolCalls: [0, 1].map((k) => ({ toolCallId: `s${s}r${r}c${k}`, toolName: "bash", args: { k }, resultText: `s${s}r${r}c${k} ${"line\n".repeat(300)}`, isError: false, resultTimestamp: t + k })) }];
}

/** The client's behaviour: retry a capture POST until it is acknowledged (committed). */
async function captureUntilAcked(db: DbHandle["db"], s: number, r: number): Promise<void> {
  for (;;) {
    try { await captureBatches(db, TENANT, `sess-${s}`, `r${r}`, batches(s, r)); return; } catch { await sleep(200); }
  }
}

/** The API's behaviour: the request row is written first; an enqueue failure leaves it queued. */
async function flushBestEffort(db: DbHandle["db"], queue: BullmqJobQueue<CondenseJobs>, s: number): Promise<void> {
  for (;;) {
    try { await requestAndEnqueue(db, queue, TENANT, `sess-${s}`); return; } catch (err) {
      if (/enqueue|Redis|Connection|closed|ECONNREFUSED|writeable/i.test(String(err))) return; // row recorded, enqueue failed
      await sleep(200);
    }
  }
}

async function settledEverything(pgUrl: string, expectedCaptures: number) {
  const outcomes = await captureOutcomes(pgUrl);
  expect(outcomes.reduce((n, o) => n + o.n, 0)).toBe(expectedCaptures);
  expect(outcomes.find((o) => o.status === "pending")?.n ?? 0).toBe(0);
  const states = await requestStates(pgUrl);
  expect(states.queued ?? 0).toBe(0);
  expect(await refsMintedTwice(pgUrl)).toEqual([]);
  return { outcomes, states };
}

describe.skipIf(!pgAdmin || !hasBinary("redis-server"))("Redis restart mid-load", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); }, 120_000);

  it("loses no acknowledged capture and finishes every request after Redis comes back", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "condense-redis-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    let redis: ChildProcess | undefined;
    const startRedis = async () => {
      redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", dir, "--maxmemory-policy", "noeviction"], { stdio: "ignore" });
      await sleep(500);
    };
    const stopRedis = async () => { const r = redis; if (!r || r.exitCode !== null) return; r.kill("SIGTERM"); await new Promise((res) => r.once("exit", res)); };
    await startRedis();
    cleanups.push(stopRedis);
    const redisUrl = `redis://127.0.0.1:${port}`;
    const pg = await scratchDatabase(pgAdmin);
    cleanups.push(() => pg.drop());
    const handle = await createDb(pg.url, { max: 10 });
    cleanups.push(() => handle.close());
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: TENANT });
    const queue = await createBullmqQueue({ catalog: condenseJobs, redisUrl, prefix: "faults" });
    cleanups.push(() => queue.close(1000));
    const env = { DATABASE_URL: pg.url, REDIS_URL: redisUrl, CONDENSE_REDIS_PREFIX: "faults", WORKER_CONCURRENCY: "4", CONDENSE_MIGRATE: "false", CONDENSE_REQUEUE_AFTER_MS: "3000", CONDENSE_REQUEUE_INTERVAL_MS: "1000" };
    const workers: WorkerProc[] = [spawnWorker("rw1", env), spawnWorker("rw2", env)];
    cleanups.push(() => Promise.all(workers.map((w) => stopWorker(w))));
    await Promise.all(workers.map((w) => w.ready));

    const SESSIONS = 30, ROUNDS = 4;
    const load = (async () => {
      for (let r = 0; r < ROUNDS; r++) {
        await Promise.all(Array.from({ length: SESSIONS }, async (_, s) => { await captureUntilAcked(handle.db, s, r); await flushBestEffort(handle.db, queue, s); }));
        await sleep(400);
      }
    })();
    await sleep(900);
    await stopRedis();
    await sleep(2500);
    await startRedis();
    await load;
    await waitUntil(async () => !(await requestStates(pg.url)).queued, 180_000, "every request to finish after the Redis restart", 500);
    const { outcomes, states } = await settledEverything(pg.url, SESSIONS * ROUNDS * 2);
    console.log(`[worker-faults/redis] requests ${JSON.stringify(states)} captures ${JSON.stringify(outcomes)}`);
  }, 300_000);
});

describe.skipIf(!sharedRedis || !hasBinary("initdb") || !hasBinary("pg_ctl"))("Postgres restart mid-load", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); }, 120_000);

  it("loses no acknowledged capture and finishes every request after Postgres comes back", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "condense-pg-"));
    chmodSync(dir, 0o777);
    const data = join(dir, "data");
    // initdb refuses to run as root: run the cluster as the postgres user when we are root.
    const asPg = (cmd: string) => (process.getuid?.() === 0 ? execFileSync("su", ["postgres", "-c", cmd], { stdio: "pipe" }) : execFileSync("sh", ["-c", cmd], { stdio: "pipe" }));
    asPg(`initdb -D ${data} -U postgres --auth=trust >/dev/null`);
    const pgctl = (action: string) => asPg(`pg_ctl -D ${data} -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1" -l ${dir}/log -w ${action}`);
    pgctl("start");
    cleanups.push(async () => { try { asPg(`pg_ctl -D ${data} -m immediate -w stop`); } catch { /* already down */ } rmSync(dir, { recursive: true, force: true }); });
    const pgUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const handle = await createDb(pgUrl, { max: 10 });
    cleanups.push(() => handle.close());
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: TENANT });
    const prefix = `condense-pgfault-${port}`;
    const queue = await createBullmqQueue({ catalog: condenseJobs, redisUrl: sharedRedis, prefix });
    cleanups.push(async () => { await queue.close(1000); const { dropRedisPrefix } = await import("./support/worker-fleet.ts"); await dropRedisPrefix(sharedRedis, prefix); });
    const env = { DATABASE_URL: pgUrl, REDIS_URL: sharedRedis, CONDENSE_REDIS_PREFIX: prefix, WORKER_CONCURRENCY: "4", CONDENSE_MIGRATE: "false", CONDENSE_REQUEUE_AFTER_MS: "3000", CONDENSE_REQUEUE_INTERVAL_MS: "1000" };
    const workers: WorkerProc[] = [spawnWorker("pw1", env), spawnWorker("pw2", env)];
    cleanups.push(() => Promise.all(workers.map((w) => stopWorker(w))));
    await Promise.all(workers.map((w) => w.ready));

    const SESSIONS = 30, ROUNDS = 4;
    const load = (async () => {
      for (let r = 0; r < ROUNDS; r++) {
        await Promise.all(Array.from({ length: SESSIONS }, async (_, s) => { await captureUntilAcked(handle.db, s, r); await flushBestEffort(handle.db, queue, s); }));
        await sleep(400);
      }
    })();
    await sleep(900);
    pgctl("-m fast stop");
    await sleep(3000);
    pgctl("start");
    await load;
    // Requests whose row could not be written while Postgres was down were never acknowledged;
    // the client flushes again later, which this final round stands for.
    await Promise.all(Array.from({ length: SESSIONS }, (_, s) => flushBestEffort(handle.db, queue, s)));
    await waitUntil(async () => !(await requestStates(pgUrl)).queued, 180_000, "every request to finish after the Postgres restart", 500);
    const { outcomes, states } = await settledEverything(pgUrl, SESSIONS * ROUNDS * 2);
    const errors = await withSql(pgUrl, async (sql) => (await sql`select count(*)::int n from flush_metrics where outcome = 'error'`)[0]!.n as number);
    console.log(`[worker-faults/postgres] requests ${JSON.stringify(states)} captures ${JSON.stringify(outcomes)} error-rows ${errors}`);
  }, 300_000);
});
