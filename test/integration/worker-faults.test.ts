/**
 * Broker and database faults under load: a private Redis (AOF on, random port) is restarted in the
 * middle of a run, and separately a throwaway Postgres cluster (initdb + pg_ctl, random port) is
 * restarted. Acknowledged captures are never lost and the system finishes every flush request by
 * itself (reconnects, BullMQ retries, and the requeue sweeper for jobs that could not be enqueued).
 * The shared Redis on 6379 and the shared Postgres on 5432 are never touched.
 *
 * Each outage is shown to overlap work in flight: the service goes down while requests it must carry
 * are still queued and the load has not finished, and the load's own writes fail during it.
 * Every wait is on a condition with a deadline inside the test's time budget, and reports the fleet's
 * state when it runs out.
 *
 * A Redis stopped with SIGTERM runs the commands it has read and writes them to its AOF, but exits
 * before sending their replies. A worker's fetch (BullMQ's moveToActive) caught that way leaves a job
 * active under a lock the worker never learns of; ioredis resends the fetch after the restart, which
 * takes another job under the same token. BullMQ gives the orphan back once its lock lapses, at the
 * next stalled-job check: up to lock + stalled interval later, about 60 s with the defaults
 * (CONDENSE_WORKER_LOCK_MS and CONDENSE_WORKER_STALLED_INTERVAL_MS, 30 s each), while the requeue
 * sweeper's enqueue for that session waits behind it as the key's follow-up. That happened in 5 of
 * 34 runs here (two busy loops on 2 vCPUs), each spending 56-58 s of the budget. So the Redis suite's
 * workers run with a 10 s lock (the outage, a few seconds, stays well inside it, so jobs in flight
 * across it keep their locks) and a 1 s stalled check: an orphan is back within ~12 s.
 *
 * Its workers also summarize through a local fake model answering after SUMMARIZER_DELAY_MS: with the
 * deterministic summarizer a fast host's fleet drained the whole backlog in the milliseconds Redis
 * takes to stop, and no request was left queued across the outage (a first-run failure in CI).
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDb, ensureTenant, migrateDb } from "@condense/db";
import { type BullmqJobQueue, condenseJobs, createBullmqQueue } from "@condense/queue";
import { fakeSummarizerConfig, startFakeLlm } from "@condense/test-support/fake-llm";
import { startFaultLoad, CAPTURES_PER_ROUND_AND_SESSION, type FaultLoad } from "./support/fault-load.ts";
import {
  captureOutcomes,
  finishedAfter,
  fleetSnapshot,
  queuedRequestIds,
  refsMintedTwice,
  requestStates,
  withSql,
} from "./support/fleet-checks.ts";
import { createThrowawayPostgres, hasBinary, startPrivateRedis } from "./support/throwaway-services.ts";
import {
  dropRedisPrefix,
  flushKeyHolders,
  jobsRedelivered,
  scratchDatabase,
  spawnWorker,
  stopWorker,
  waitUntil,
  type WorkerProc,
} from "./support/worker-fleet.ts";

const pgAdmin = inject("databaseUrl").startsWith("postgres") ? inject("databaseUrl") : "";
const sharedRedis = inject("redisUrl");
const TENANT = "faults";
const SESSIONS = 30,
  ROUNDS = 4,
  PAUSE_MS = 400;
const WORKERS = 2,
  CONCURRENCY = 4;
/**
 * Queued requests (of distinct sessions) required when the service goes down. With more sessions than
 * the fleet runs at once (plus a margin for the milliseconds between this check and the outage), some
 * of them are waiting, not running, when it starts, and cannot finish until the service is back.
 */
const MIN_BACKLOG_SESSIONS = WORKERS * CONCURRENCY + 4;
const MIN_OUTAGE_MS = 2000;
/** The Redis suite's summarizer latency (see the header): 8 job slots then take ~0.4 s per backlog of 12 sessions. */
const SUMMARIZER_DELAY_MS = 250;
/** Worker lock and stalled-check interval of the Redis suite (see the header). */
const REDIS_SUITE_LOCK_MS = 10_000,
  REDIS_SUITE_STALLED_INTERVAL_MS = 1000;
const TEST_MS = 170_000;
/** Waits share this budget, so a stuck phase reports its diagnostics before vitest's timeout. */
const BUDGET_MS = 150_000;

function budget(totalMs: number): (phaseMs: number) => number {
  const end = Date.now() + totalMs;
  return (phaseMs) => Math.max(1000, Math.min(phaseMs, end - Date.now()));
}

function workerEnv(
  databaseUrl: string,
  redisUrl: string,
  prefix: string,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    ...extra,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    CONDENSE_REDIS_PREFIX: prefix,
    WORKER_CONCURRENCY: String(CONCURRENCY),
    CONDENSE_MIGRATE: "false",
    CONDENSE_REQUEUE_AFTER_MS: "3000",
    CONDENSE_REQUEUE_INTERVAL_MS: "1000",
  };
}

/** Lines a worker logged for an exception nothing caught (main.ts logs them instead of dying). */
function uncaughtInWorkers(workers: WorkerProc[]): string[] {
  return workers.flatMap((w) =>
    w
      .logs()
      .split("\n")
      .filter((l) => /"msg":"(uncaught exception|unhandled rejection)"/.test(l))
      .map((l) => `${w.id}: ${l.slice(0, 600)}`),
  );
}

/** Per worker: exit state, the distinct errors its recent log lines carry (with counts), stderr tail. */
function workerTails(workers: WorkerProc[]): string {
  return workers
    .map((w) => {
      const errors = new Map<string, number>();
      for (const line of w.logs().split("\n")) {
        let entry: {
          msg?: string;
          err?: { type?: string; message?: string; code?: string; cause?: { message?: string; code?: string } };
        };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        } // the buffer's first line is cut
        if (!entry.err) continue;
        // Drizzle puts the whole statement and its parameters into the message: keep its head.
        const { type, message = "", code, cause } = entry.err;
        const key = `${entry.msg}: ${type ?? "Error"}${code ? ` ${code}` : ""}: ${message.slice(0, 200)}${cause ? ` [cause${cause.code ? ` ${cause.code}` : ""}: ${(cause.message ?? "").slice(0, 200)}]` : ""}`;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
      const errs = [...errors].map(([k, n]) => `  ${n}x ${k}`).join("\n") || "  (none logged)";
      return `--- ${w.id} (exit ${w.proc.exitCode ?? w.proc.signalCode ?? "-"}) errors in its recent log:\n${errs}\n--- ${w.id} stderr tail:\n${w.stderr().slice(-800)}`;
    })
    .join("\n");
}

/** Queued requests right now and the distinct sessions they belong to. */
async function backlog(url: string): Promise<{ ids: string[]; sessionIds: string[] }> {
  const rows = await withSql(
    url,
    async (sql) => sql`select id, session_id from flush_requests where status = 'queued'`,
  );
  const sessionIds = [...new Set(rows.map((r) => r.session_id as string))].sort();
  return { ids: rows.map((r) => r.id as string), sessionIds };
}

async function expectSettled(url: string, load: FaultLoad) {
  const stats = load.stats();
  expect(stats.capturesAcked).toBe(SESSIONS * ROUNDS * CAPTURES_PER_ROUND_AND_SESSION);
  expect(stats.requestsRecorded).toBe(SESSIONS * ROUNDS);
  const outcomes = await captureOutcomes(url);
  // Every acknowledged capture is stored exactly once, and each was flushed (none left pending).
  expect(outcomes.reduce((n, o) => n + o.n, 0)).toBe(stats.capturesAcked);
  expect(outcomes.find((o) => o.status === "pending")?.n ?? 0).toBe(0);
  const states = await requestStates(url);
  expect(states.queued ?? 0).toBe(0);
  expect(states.failed ?? 0).toBe(0);
  expect(Object.values(states).reduce((a, b) => a + b, 0)).toBe(stats.requestsRecorded);
  expect(await refsMintedTwice(url)).toEqual([]);
  return { outcomes, states, stats };
}

type Failures = ReturnType<FaultLoad["failuresSince"]>;
type Cleanups = (() => Promise<unknown>)[];
interface Fleet {
  handle: Awaited<ReturnType<typeof createDb>>;
  queue: BullmqJobQueue<typeof condenseJobs>;
  workers: WorkerProc[];
}

/**
 * A cleanup list run in reverse after the suite, after `first` (the load's abort); a failing step is
 * reported, not thrown.
 */
function suiteCleanups(label: string, first: () => void): Cleanups {
  const cleanups: Cleanups = [];
  afterAll(async () => {
    first();
    for (const c of cleanups.splice(0).reverse())
      await c().catch((e: unknown) => console.warn(`[worker-faults/${label}] cleanup step failed: ${String(e)}`));
  }, 90_000);
  return cleanups;
}

/** A migrated database with the tenant, a BullMQ queue and WORKERS worker processes, all ready. */
async function startFleet(
  cleanups: Cleanups,
  o: { databaseUrl: string; redisUrl: string; prefix: string; workerId: string; env?: Record<string, string> },
): Promise<Fleet> {
  const handle = await createDb(o.databaseUrl, { max: 10 });
  cleanups.push(() => handle.close());
  await migrateDb(handle);
  await ensureTenant(handle.db, { id: TENANT });
  const queue = await createBullmqQueue({ catalog: condenseJobs, redisUrl: o.redisUrl, prefix: o.prefix });
  cleanups.push(() => queue.close(1000));
  const env = workerEnv(o.databaseUrl, o.redisUrl, o.prefix, o.env ?? {});
  const workers = Array.from({ length: WORKERS }, (_, i) => spawnWorker(`${o.workerId}${i + 1}`, env));
  cleanups.push(() => Promise.all(workers.map((w) => stopWorker(w, "SIGTERM", 15_000))));
  await Promise.all(workers.map((w) => w.ready));
  return { handle, queue, workers };
}

interface OutageRun {
  load: FaultLoad;
  /** The queued requests when the service went down. */
  before: { ids: string[]; sessionIds: string[] };
  downAt: number;
  upAt: number;
  settledAt: number;
  duringOutage: Failures;
  loadRunningAtRestart: boolean;
}

/**
 * The load against a running fleet; once requests of MIN_BACKLOG_SESSIONS sessions are queued, the
 * service goes down (`down`, then `atDown` right after) until MIN_OUTAGE_MS have passed and the load's
 * own writes have failed (`failed` counts the ones this outage makes fail), comes back (`up`), and
 * every request finishes.
 */
async function throughOutage(o: {
  service: string;
  databaseUrl: string;
  fleet: Fleet;
  /** The test's budget, shared with its setup. */
  time: (phaseMs: number) => number;
  onLoad: (load: FaultLoad) => void;
  diagnose: () => Promise<string>;
  down: () => Promise<void>;
  /** Right after the service went down, with the moment it did (epoch ms). */
  atDown?: (downAt: number) => Promise<void>;
  up: () => Promise<void>;
  failed: { count: (f: Failures) => number; what: string };
}): Promise<OutageRun> {
  const { time } = o;
  const load = startFaultLoad({
    db: o.fleet.handle.db,
    queue: o.fleet.queue,
    tenantId: TENANT,
    sessions: SESSIONS,
    rounds: ROUNDS,
    pauseMs: PAUSE_MS,
    timeoutMs: time(120_000),
  });
  o.onLoad(load);
  let before: Awaited<ReturnType<typeof backlog>> = { ids: [], sessionIds: [] };
  await waitUntil(
    async () => {
      if (load.stats().finished)
        throw new Error(
          `the load finished before a backlog of ${MIN_BACKLOG_SESSIONS} sessions built up; last backlog ${before.sessionIds.length}\n${await o.diagnose()}`,
        );
      before = await backlog(o.databaseUrl);
      return before.sessionIds.length >= MIN_BACKLOG_SESSIONS;
    },
    time(30_000),
    `queued requests of ${MIN_BACKLOG_SESSIONS} sessions before the ${o.service} outage`,
    50,
    o.diagnose,
  );
  await o.down();
  const downAt = Date.now();
  await o.atDown?.(downAt);
  await waitUntil(
    async () => Date.now() - downAt >= MIN_OUTAGE_MS && o.failed.count(load.failuresSince(downAt)) > 0,
    time(20_000),
    `${o.failed.what} of the load to fail during the ${o.service} outage`,
    100,
    o.diagnose,
  );
  const duringOutage = load.failuresSince(downAt);
  const loadRunningAtRestart = !load.stats().finished;
  await o.up();
  const upAt = Date.now();
  await load.done;
  await waitUntil(
    async () => !(await requestStates(o.databaseUrl)).queued,
    time(90_000),
    `every request to finish after the ${o.service} restart`,
    250,
    o.diagnose,
  );
  return { load, before, downAt, upAt, settledAt: Date.now(), duringOutage, loadRunningAtRestart };
}

describe.skipIf(!pgAdmin || !hasBinary("redis-server"))("Redis restart mid-load", () => {
  let load: FaultLoad | undefined;
  const cleanups = suiteCleanups("redis", () => load?.abort());

  it(
    "loses no acknowledged capture and finishes every request after Redis comes back",
    async () => {
      const t0 = Date.now();
      const time = budget(BUDGET_MS);
      const redis = await startPrivateRedis();
      cleanups.push(() => redis.destroy());
      const llm = await startFakeLlm({ scenarios: {}, summarizerDelayMs: SUMMARIZER_DELAY_MS });
      cleanups.push(() => llm.close());
      const pg = await scratchDatabase(pgAdmin);
      cleanups.push(() => pg.drop());
      const fleet = await startFleet(cleanups, {
        databaseUrl: pg.url,
        redisUrl: redis.url,
        prefix: "faults",
        workerId: "rw",
        env: {
          CONDENSE_WORKER_LOCK_MS: String(REDIS_SUITE_LOCK_MS),
          CONDENSE_WORKER_STALLED_INTERVAL_MS: String(REDIS_SUITE_STALLED_INTERVAL_MS),
          CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm),
        },
      });
      // The job holding each still-queued session's key (up to 10 sessions): an orphaned one shows as
      // active with a lock nobody renews.
      const holders = async () =>
        flushKeyHolders(
          fleet.queue.queue,
          redis.url,
          TENANT,
          (await backlog(pg.url).catch(() => ({ sessionIds: [] as string[] }))).sessionIds.slice(0, 10),
        );
      const diagnose = async () =>
        `load ${JSON.stringify(load?.stats())}\n${await fleetSnapshot(pg.url)}\n--- jobs holding queued sessions' keys:\n${await holders()}\n${workerTails(fleet.workers)}`;
      // Requested before Redis went down and still queued once it was down: queued at the moment it went
      // down (not only the backlog polled before: a fast fleet drains that in the time Redis takes to stop).
      let acrossOutage: string[] = [];
      const run = await throughOutage({
        service: "Redis",
        databaseUrl: pg.url,
        fleet,
        time,
        onLoad: (l) => {
          load = l;
        },
        diagnose,
        down: () => redis.stop(),
        atDown: async (downAt) => {
          acrossOutage = await queuedRequestIds(pg.url, downAt);
        },
        up: () => redis.start(),
        failed: { count: (f) => f.enqueue, what: "an enqueue" },
      });

      const { outcomes, states, stats } = await expectSettled(pg.url, run.load);
      expect(acrossOutage.length, "requests queued across the moment Redis went down").toBeGreaterThan(0);
      expect(run.duringOutage.enqueue, "enqueues that failed while Redis was down").toBeGreaterThan(0);
      expect(uncaughtInWorkers(fleet.workers)).toEqual([]);
      const redelivered = await jobsRedelivered(fleet.queue.queue);
      console.log(
        `[worker-faults/redis] backlog at outage ${run.before.ids.length} requests / ${run.before.sessionIds.length} sessions, queued across it ${acrossOutage.length}; ` +
          `outage ${run.upAt - run.downAt} ms with ${JSON.stringify(run.duringOutage)} failed writes (load still running at restart: ${run.loadRunningAtRestart}); ` +
          `settled ${run.settledAt - run.upAt} ms after restart (jobs given back after a lapsed lock: ${redelivered}); total ${run.settledAt - t0} ms; requests ${JSON.stringify(states)} captures ${JSON.stringify(outcomes)} load ${JSON.stringify(stats)}`,
      );
    },
    TEST_MS,
  );
});

describe.skipIf(!sharedRedis || !hasBinary("initdb") || !hasBinary("pg_ctl"))("Postgres restart mid-load", () => {
  let load: FaultLoad | undefined;
  const cleanups = suiteCleanups("postgres", () => load?.abort());

  it(
    "loses no acknowledged capture and finishes every request after Postgres comes back",
    async () => {
      const t0 = Date.now();
      const time = budget(BUDGET_MS);
      const cluster = await createThrowawayPostgres();
      cleanups.push(() => cluster.destroy());
      const prefix = `condense-pgfault-${new URL(cluster.url).port}`;
      cleanups.push(() => dropRedisPrefix(sharedRedis, prefix));
      const fleet = await startFleet(cleanups, {
        databaseUrl: cluster.url,
        redisUrl: sharedRedis,
        prefix,
        workerId: "pw",
      });
      const diagnose = async () =>
        `load ${JSON.stringify(load?.stats())}\n${await fleetSnapshot(cluster.url)}\n${workerTails(fleet.workers)}\n--- postgres log tail:\n${cluster.logTail(1500)}`;
      const run = await throughOutage({
        service: "Postgres",
        databaseUrl: cluster.url,
        fleet,
        time,
        onLoad: (l) => {
          load = l;
        },
        diagnose,
        // Fast shutdown: every backend is terminated, in-flight transactions (captures, request rows,
        // workers' commits) die with their connections.
        down: () => cluster.stop("fast"),
        up: () => cluster.start(),
        failed: { count: (f) => f.capture + f.request, what: "a capture or flush request" },
      });

      const { outcomes, states, stats } = await expectSettled(cluster.url, run.load);
      // Queued just before the shutdown and finished by a transaction that began after the server was
      // down: these requests were in flight across the outage.
      const acrossOutage = await finishedAfter(cluster.url, run.before.ids, run.downAt);
      expect(acrossOutage, "requests queued at the shutdown and finished only after the restart").toBeGreaterThan(0);
      expect(
        run.duringOutage.capture + run.duringOutage.request,
        "captures or flush requests that failed while Postgres was down",
      ).toBeGreaterThan(0);
      expect(uncaughtInWorkers(fleet.workers)).toEqual([]);
      const errorRows = await withSql(
        cluster.url,
        async (sql) => (await sql`select count(*)::int n from flush_metrics where outcome = 'error'`)[0]!.n as number,
      );
      console.log(
        `[worker-faults/postgres] backlog at shutdown ${run.before.ids.length} requests / ${run.before.sessionIds.length} sessions, finished after restart ${acrossOutage}; ` +
          `outage ${run.upAt - run.downAt} ms with ${JSON.stringify(run.duringOutage)} failed writes (load still running at restart: ${run.loadRunningAtRestart}); ` +
          `settled ${run.settledAt - run.upAt} ms after restart; total ${run.settledAt - t0} ms; requests ${JSON.stringify(states)} captures ${JSON.stringify(outcomes)} error-rows ${errorRows} load ${JSON.stringify(stats)}`,
      );
    },
    TEST_MS,
  );
});
