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
import { createDb, migrateDb, type DbHandle } from "@condense/db";
import {
  condenseJobs,
  createBullmqQueue,
  createInProcessQueue,
  workerConnection,
  type CloseResult,
  type CondenseJobs,
  type JobEvent,
  type JobHandler,
  type JobQueue,
} from "@condense/queue";
import { createRedisBreakerStore, createSummarizer, type Summarizer } from "@condense/summarizer";
import type { Redis } from "ioredis";
import { pino, type Logger } from "pino";
import type { Registry } from "prom-client";
import type { WorkerConfig } from "./config.ts";
import type { FlushHooks } from "./crash-hooks.ts";
import { createJobHandler, type FlushTrace } from "./job-handler.ts";
import { startRequeueSweeper, type RequeueSweeper } from "./requeue-sweeper.ts";
import { createWorkerMetrics, type WorkerMetrics } from "./worker-metrics.ts";

export interface RuntimeDeps {
  /** A database the caller owns (not closed by close()). */
  db?: DbHandle;
  /** A queue the caller owns (not closed by close()); the worker attaches its handler to it. */
  jobQueue?: JobQueue<CondenseJobs>;
  summarizer?: Summarizer;
  logger?: Logger;
  registry?: Registry;
  hooks?: FlushHooks;
  onFlushTrace?: (trace: FlushTrace) => void;
  onJobEvent?: (event: JobEvent) => void;
}

export interface Runtime {
  mode: WorkerConfig["mode"];
  config: WorkerConfig;
  db: DbHandle;
  queue: JobQueue<CondenseJobs>;
  summarizer: Summarizer;
  metrics: WorkerMetrics;
  handler: JobHandler<CondenseJobs>;
  logger: Logger;
  /** Start taking jobs (and the requeue sweeper). */
  start(): Promise<void>;
  /** Stop taking jobs, let active ones finish for up to `graceMs`, then release them; close what we own. */
  close(graceMs?: number): Promise<CloseResult>;
}

export async function createRuntime(config: WorkerConfig, deps: RuntimeDeps = {}): Promise<Runtime> {
  const logger = deps.logger ?? pino({ level: config.logLevel, base: { app: "condense-worker", worker: config.workerId } });
  const owned: (() => Promise<unknown>)[] = [];
  const closeOwned = async () => {
    for (const fn of owned.splice(0).reverse()) {
      try { await fn(); } catch (err) { logger.warn({ err }, "worker shutdown step failed"); }
    }
  };
  try {
    let db = deps.db;
    if (!db) {
      if (config.databaseUrl.startsWith("pglite:") && config.databaseUrl.length > "pglite:".length) {
        mkdirSync(config.databaseUrl.slice("pglite:".length).replace(/^\/\//, ""), { recursive: true });
      }
      const handle = await createDb(config.databaseUrl, { max: Math.max(10, config.concurrency + 2) });
      owned.push(() => handle.close());
      if (config.migrate) await migrateDb(handle);
      db = handle;
    }

    let redis: Redis | undefined;
    if (config.redisUrl) {
      const conn = workerConnection(config.redisUrl);
      conn.on("error", () => {});
      owned.push(() => conn.quit().catch(() => conn.disconnect()));
      redis = conn;
    }

    let queue = deps.jobQueue;
    const ownsQueue = !queue;
    if (!queue) {
      const onJobEvent = deps.onJobEvent;
      queue = config.redisUrl
        ? await createBullmqQueue({
            catalog: condenseJobs,
            redisUrl: config.redisUrl,
            prefix: config.redisPrefix,
            lockDurationMs: config.lockDurationMs,
            stalledIntervalMs: config.stalledIntervalMs,
            ...(onJobEvent ? { onJobEvent } : {}),
          })
        : createInProcessQueue({ catalog: condenseJobs, ...(onJobEvent ? { onJobEvent } : {}) });
    }

    const metrics = createWorkerMetrics(deps.registry);
    const summarizer = deps.summarizer ?? createSummarizer(config.summarizer, {
      ...(redis ? { breakerStore: createRedisBreakerStore(redis, `${config.redisPrefix}:breaker:`) } : {}),
      registry: metrics.registry,
      logger,
      workerId: config.workerId,
    });
    const handler = createJobHandler({
      db: db.db, summarizer, workerId: config.workerId, logger, metrics, batchConcurrency: config.batchConcurrency,
      ...(deps.hooks ? { hooks: deps.hooks } : {}),
      ...(deps.onFlushTrace ? { onFlushTrace: deps.onFlushTrace } : {}),
    });

    let sweeper: RequeueSweeper | undefined;
    let started = false;
    const q = queue;
    const dbHandle = db;
    return {
      mode: config.mode,
      config,
      db: dbHandle,
      queue: q,
      summarizer,
      metrics,
      handler,
      logger,
      async start() {
        if (started) return;
        started = true;
        q.process(handler, { concurrency: config.concurrency });
        sweeper = startRequeueSweeper({ db: dbHandle.db, queue: q, logger, afterMs: config.requeueAfterMs, intervalMs: config.requeueIntervalMs });
        // An in-process queue starts empty: every request still queued was lost with a previous process.
        if (q.kind === "in-process") await sweeper.sweep(new Date());
        logger.info({ mode: config.mode, queue: q.kind, concurrency: config.concurrency }, "worker started");
      },
      async close(graceMs = config.shutdownGraceMs) {
        sweeper?.stop();
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
