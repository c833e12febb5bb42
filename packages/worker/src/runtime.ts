/**
 * `createRuntime(config)`: the one place that builds the worker's database, queue, summarizer and
 * job handler from configuration. Fleet mode (DATABASE_URL and REDIS_URL): postgres.js and BullMQ,
 * the summarizer's outage breaker shared through Redis. Embedded mode (neither): PGlite in a local
 * data directory and the in-process queue. The job handler is the same code in every mode.
 *
 * A caller that already owns a database or queue (the CLI running API and worker in one process)
 * passes them in; the runtime then attaches to them and leaves closing them to their owner.
 */
import { mkdirSync } from "node:fs";
import {
  createDb,
  migrateDb,
  newStartupState,
  pingDb,
  untilAvailable,
  type DbHandle,
  type RetentionResult,
  type StartupState,
} from "@condense/db";
import {
  condenseJobs,
  createBullmqQueue,
  createInProcessQueue,
  type InProcessJobQueue,
  workerConnection,
  type CloseResult,
  type CondenseJobs,
  type JobEvent,
  type JobHandler,
  type JobQueue,
} from "@condense/queue";
import {
  createMemoryBreakerStore,
  createRedisBreakerStore,
  createSummarizer,
  type Summarizer,
  type SummarizerHandOffStore,
} from "@condense/summarizer";
import type { Redis } from "ioredis";
import { pino, type Logger } from "pino";
import type { Registry } from "prom-client";
import type { WorkerConfig } from "./config.ts";
import type { FlushHooks } from "./crash-hooks.ts";
import { createJobHandler, type FlushTrace } from "./job-handler.ts";
import { createSummarizerSelection } from "./summarizer-selection.ts";
import { startRequeueSweeper, type RequeueSweeper } from "./requeue-sweeper.ts";
import { startRetentionSchedule, type RetentionSchedule } from "./retention-schedule.ts";
import { createWorkerMetrics, type WorkerMetrics } from "./worker-metrics.ts";

export interface RuntimeDeps {
  /** A database the caller owns (not closed by close()). */
  db?: DbHandle;
  /** A queue the caller owns (not closed by close()); the worker attaches its handler to it. */
  jobQueue?: JobQueue<CondenseJobs>;
  summarizer?: Summarizer;
  /**
   * Models handed off by the sessions' agents (in memory only), shared with the API app that fills it.
   * Absent: sessions summarize with the operator's models or the worker default.
   */
  handOffs?: SummarizerHandOffStore;
  logger?: Logger;
  registry?: Registry;
  hooks?: FlushHooks;
  onFlushTrace?: (trace: FlushTrace) => void;
  onJobEvent?: (event: JobEvent) => void;
  /** Kept current while the runtime waits for Postgres or Redis at startup (a readiness probe reads it). */
  startup?: StartupState;
  /** Stops the startup wait (shutdown before the dependencies ever came up). */
  signal?: AbortSignal;
}

export interface Runtime {
  mode: WorkerConfig["mode"];
  config: WorkerConfig;
  db: DbHandle;
  queue: JobQueue<CondenseJobs>;
  /**
   * Resolves once the queue has no job left to run (every flush enqueued so far finished, its chain
   * stage included); only for the in-process queue this runtime made, null otherwise (BullMQ, or a
   * queue the caller owns).
   */
  whenIdle: (() => Promise<void>) | null;
  summarizer: Summarizer;
  metrics: WorkerMetrics;
  handler: JobHandler<CondenseJobs>;
  logger: Logger;
  /** Start taking jobs (and the requeue sweeper and the retention schedule). */
  start(): Promise<void>;
  /** One retention run now with the configured policy (what the schedule runs); null while one is running. */
  runRetentionNow(): Promise<RetentionResult | null>;
  /** Stop taking jobs, let active ones finish for up to `graceMs`, then release them; close what we own. */
  close(graceMs?: number): Promise<CloseResult>;
}

export async function createRuntime(config: WorkerConfig, deps: RuntimeDeps = {}): Promise<Runtime> {
  const logger =
    deps.logger ?? pino({ level: config.logLevel, base: { app: "condense-worker", worker: config.workerId } });
  const startup = deps.startup ?? newStartupState();
  const owned: (() => Promise<unknown>)[] = [];
  const closeOwned = async () => {
    for (const fn of owned.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        logger.warn({ err }, "worker shutdown step failed");
      }
    }
  };
  try {
    let db = deps.db;
    if (!db) {
      if (config.databaseUrl.startsWith("pglite:") && config.databaseUrl.length > "pglite:".length) {
        mkdirSync(config.databaseUrl.slice("pglite:".length).replace(/^\/\//, ""), { recursive: true });
      }
      // Postgres may come up after the worker: retry (with backoff) until it answers and is migrated.
      const handle = await untilAvailable(
        "database",
        async () => {
          const h = await createDb(config.databaseUrl, { max: Math.max(10, config.concurrency + 2) });
          try {
            if (config.migrate) await migrateDb(h);
            else await pingDb(h.db);
            return h;
          } catch (err) {
            await h.close().catch(() => {});
            throw err;
          }
        },
        { logger, state: startup, ...(deps.signal ? { signal: deps.signal } : {}) },
      );
      owned.push(() => handle.close());
      db = handle;
    }

    let redis: Redis | undefined;
    if (config.redisUrl) {
      const conn = await workerConnection(config.redisUrl);
      conn.on("error", () => {});
      owned.push(() => conn.quit().catch(() => conn.disconnect()));
      redis = conn;
    }

    let queue = deps.jobQueue;
    let inProcess: InProcessJobQueue<CondenseJobs> | null = null;
    const ownsQueue = !queue;
    if (!queue) {
      const onJobEvent = deps.onJobEvent;
      // Redis may come up after the worker too: the queue's first connection is retried with backoff.
      queue = config.redisUrl
        ? await untilAvailable(
            "redis",
            () =>
              createBullmqQueue({
                catalog: condenseJobs,
                redisUrl: config.redisUrl!,
                prefix: config.redisPrefix,
                lockDurationMs: config.lockDurationMs,
                stalledIntervalMs: config.stalledIntervalMs,
                ...(onJobEvent ? { onJobEvent } : {}),
              }),
            { logger, state: startup, ...(deps.signal ? { signal: deps.signal } : {}) },
          )
        : (inProcess = createInProcessQueue({ catalog: condenseJobs, ...(onJobEvent ? { onJobEvent } : {}) }));
    }

    const metrics = createWorkerMetrics(deps.registry);
    // One breaker store for the operator's models, so the default summarizer and the per-session ones
    // built from the same model share its outage state (fleet-wide through Redis).
    const breakerStore = redis
      ? createRedisBreakerStore(redis, `${config.redisPrefix}:breaker:`)
      : createMemoryBreakerStore();
    const summarizer =
      deps.summarizer ??
      createSummarizer(config.summarizer, {
        breakerStore,
        registry: metrics.registry,
        logger,
        workerId: config.workerId,
      });
    const selectSummarizer = createSummarizerSelection({
      config: config.summarizer,
      sessionModels: config.sessionModels,
      ...(deps.handOffs ? { handOffs: deps.handOffs } : {}),
      ...(deps.summarizer ? { defaultSummarizer: deps.summarizer } : {}),
      breakerStore,
      registry: metrics.registry,
      logger,
      workerId: config.workerId,
    });
    const handler = createJobHandler({
      db: db.db,
      summarizer,
      selectSummarizer,
      workerId: config.workerId,
      logger,
      metrics,
      batchConcurrency: config.batchConcurrency,
      ...(deps.hooks ? { hooks: deps.hooks } : {}),
      ...(deps.onFlushTrace ? { onFlushTrace: deps.onFlushTrace } : {}),
    });

    let sweeper: RequeueSweeper | undefined;
    let retention: RetentionSchedule | undefined;
    let started = false;
    const q = queue;
    const dbHandle = db;
    return {
      mode: config.mode,
      config,
      db: dbHandle,
      queue: q,
      whenIdle: inProcess ? inProcess.whenIdle : null,
      summarizer,
      metrics,
      handler,
      logger,
      async start() {
        if (started) return;
        started = true;
        q.process(handler, { concurrency: config.concurrency });
        sweeper = startRequeueSweeper({
          db: dbHandle.db,
          queue: q,
          logger,
          afterMs: config.requeueAfterMs,
          intervalMs: config.requeueIntervalMs,
        });
        // An in-process queue starts empty: every request still queued was lost with a previous process.
        if (q.kind === "in-process") await sweeper.sweep(new Date());
        retention = startRetentionSchedule({ db: dbHandle.db, logger, ...config.retention });
        startup.ready = true;
        logger.info({ mode: config.mode, queue: q.kind, concurrency: config.concurrency }, "worker started");
      },
      async runRetentionNow() {
        if (retention) return retention.runOnce();
        return startRetentionSchedule({
          db: dbHandle.db,
          logger,
          policy: config.retention.policy,
          intervalMs: 0,
        }).runOnce();
      },
      async close(graceMs = config.shutdownGraceMs) {
        sweeper?.stop();
        retention?.stop();
        const result = ownsQueue ? await q.close(graceMs) : { timedOut: false, abandoned: 0 };
        await closeOwned();
        logger.info({ ...result }, "worker stopped");
        return result;
      },
    };
  } catch (err) {
    await closeOwned();
    throw err;
  }
}
