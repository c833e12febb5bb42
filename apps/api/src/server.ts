/**
 * `startServer(config)`: the API on @hono/node-server, with everything newApp needs built from the
 * env (PGlite or Postgres, in-process or BullMQ queue, memory or Redis rate limits and event fan-out),
 * and a graceful `close()`: end SSE streams, stop accepting, let in-flight requests drain, and after
 * the grace period force-close what is left; then release the queue, Redis and the database.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createDb, getSessionVersions, migrateDb, type DbHandle } from "@condense/db";
import { condenseJobs, createBullmqQueue, createInProcessQueue, producerConnection, type CondenseJobs, type JobQueue } from "@condense/queue";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { appConfigFromEnv, newApp } from "./app.ts";
import type { AppEnv } from "./app-env.ts";
import { loadApiEnv, type ApiEnv } from "./env.ts";
import { createApiMetrics } from "./observability/http-metrics.ts";
import { createLogger } from "./observability/logger.ts";
import { apiQueueFrom } from "./queue-port.ts";
import { MemoryRateLimiter } from "./ratelimit/memory-rate-limiter.ts";
import { RedisRateLimiter } from "./ratelimit/redis-rate-limiter.ts";
import type { RateLimiter } from "./ratelimit/rate-limiter.ts";
import type { FallbackState } from "./routes/route-deps.ts";
import { VersionHub } from "./sse/version-hub.ts";

export interface StartServerConfig {
  /** Defaults to `loadApiEnv(process.env)`. */
  env?: ApiEnv;
  /** A database the caller owns (not closed by close()); otherwise one is opened from DATABASE_URL. */
  db?: DbHandle;
  /** A queue the caller owns (e.g. the embedded worker's); otherwise one is built for the mode. */
  jobQueue?: JobQueue<CondenseJobs>;
  logger?: Logger;
  fallbackState?: () => Promise<FallbackState>;
}

export interface RunningServer {
  url: string;
  app: OpenAPIHono<AppEnv>;
  hub: VersionHub;
  /** The queue flush jobs go to; an embedded worker attaches its processor here. */
  jobQueue: JobQueue<CondenseJobs>;
  db: DbHandle;
  close(): Promise<void>;
}

export async function startServer(config: StartServerConfig = {}): Promise<RunningServer> {
  const env = config.env ?? loadApiEnv();
  const logger = config.logger ?? createLogger(env.LOG_LEVEL);
  const cleanups: (() => Promise<unknown>)[] = [];
  const runCleanups = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try { await fn(); } catch (err) { logger.warn({ err }, "shutdown step failed"); }
    }
  };

  try {
    const db = config.db ?? (await createDb(env.DATABASE_URL));
    if (!config.db) {
      cleanups.push(() => db.close());
      if (env.CONDENSE_MIGRATE) await migrateDb(db);
    }

    let jobQueue = config.jobQueue;
    if (!jobQueue) {
      const q = env.mode === "fleet"
        ? await createBullmqQueue({ catalog: condenseJobs, redisUrl: env.REDIS_URL, prefix: env.CONDENSE_REDIS_PREFIX })
        : createInProcessQueue({ catalog: condenseJobs });
      cleanups.push(() => q.close(env.CONDENSE_SHUTDOWN_GRACE_MS));
      jobQueue = q;
    }

    let rateLimiter: RateLimiter | null = null;
    let hubRedis: { publisher: Redis; subscriber: Redis; prefix: string } | undefined;
    const policy = { perSecond: env.CONDENSE_RATE_LIMIT_PER_SEC, burst: env.CONDENSE_RATE_LIMIT_BURST };
    if (env.mode === "fleet") {
      // Fail-fast connection: a Redis outage must surface as an error, never a hung request.
      const publisher = producerConnection(env.REDIS_URL);
      publisher.on("error", () => {});
      const subscriber = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
      subscriber.on("error", () => {});
      cleanups.push(async () => { publisher.disconnect(); subscriber.disconnect(); });
      hubRedis = { publisher, subscriber, prefix: env.CONDENSE_REDIS_PREFIX };
      if (policy.perSecond > 0) rateLimiter = new RedisRateLimiter(publisher, env.CONDENSE_REDIS_PREFIX, policy);
    } else if (policy.perSecond > 0) {
      rateLimiter = new MemoryRateLimiter(policy);
    }

    const hub = new VersionHub({ readVersions: (keys) => getSessionVersions(db.db, keys), pollMs: env.CONDENSE_SSE_POLL_MS, ...(hubRedis ? { redis: hubRedis } : {}) });
    await hub.start();
    cleanups.push(() => hub.close());

    const metrics = createApiMetrics({ defaultMetrics: true });
    const apiQueue = apiQueueFrom(jobQueue);
    metrics.scrapeGauge("condense_api_queue_waiting", "Jobs waiting in the flush queue", async () => (await apiQueue.depth()).waiting);
    metrics.scrapeGauge("condense_api_queue_active", "Jobs running in the flush queue", async () => (await apiQueue.depth()).active);

    const app = newApp({
      db: db.db,
      queue: apiQueue,
      config: appConfigFromEnv(env),
      logger,
      metrics,
      rateLimiter,
      hub,
      ...(config.fallbackState ? { fallbackState: config.fallbackState } : {}),
    });

    const server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: env.PORT, hostname: env.HOST }, () => resolve(s as Server)) as Server;
      s.once("error", reject);
    });
    const addr = server.address() as AddressInfo;
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    const url = `http://${host}:${addr.port}`;
    logger.info({ url, mode: env.mode, database: db.target.driver, queue: jobQueue.kind }, "condense api listening");

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        logger.info({ graceMs: env.CONDENSE_SHUTDOWN_GRACE_MS, sseStreams: hub.openStreams }, "shutting down");
        // SSE loops watch the hub's signal; ending them first lets server.close() finish.
        await hub.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive sockets become idle as their last response ends; close them as they do.
        server.closeIdleConnections();
        const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
        let timer: NodeJS.Timeout | undefined;
        const forced = await Promise.race([
          closed.then(() => false),
          new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), env.CONDENSE_SHUTDOWN_GRACE_MS); }),
        ]);
        clearTimeout(timer);
        clearInterval(idleSweep);
        if (forced) {
          logger.warn("grace period over; closing remaining connections");
          server.closeAllConnections();
          await closed;
        }
        await runCleanups();
        logger.info("shut down");
      })());

    return { url, app, hub, jobQueue, db, close };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}
