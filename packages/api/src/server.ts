/**
 * `startServer(config)`: the API on @hono/node-server, with everything newApp needs built from the
 * env (PGlite or Postgres, the BullMQ queue in fleet mode, memory or Redis rate limits and event fan-out),
 * and a graceful `close()`: end SSE streams, stop accepting, let in-flight requests drain, and after
 * the grace period force-close what is left; then release the queue, Redis and the database.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, serve } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  createDb,
  getSessionVersions,
  migrateDb,
  newStartupState,
  pingDb,
  subscribeKeyRevocations,
  untilAvailable,
  type DbHandle,
} from "@condense/db";
import {
  condenseJobs,
  createBullmqQueue,
  producerConnection,
  workerConnection,
  type CondenseJobs,
  type JobQueue,
} from "@condense/queue";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { appConfigFromEnv, DEFAULT_APP_CONFIG, newApp } from "./app.ts";
import { TenantKeyCache } from "./auth/tenant-auth.ts";
import type { AppEnv } from "./app-env.ts";
import { loadApiEnv, type ApiEnv } from "./env.ts";
import { createApiMetrics, type ApiMetrics } from "./observability/http-metrics.ts";
import { createLogger } from "./observability/logger.ts";
import { apiQueueFrom } from "./queue-port.ts";
import { MemoryRateLimiter } from "./ratelimit/memory-rate-limiter.ts";
import { RedisRateLimiter } from "./ratelimit/redis-rate-limiter.ts";
import type { RateLimiter } from "./ratelimit/rate-limiter.ts";
import type { FallbackState, SummarizerHandOffPort } from "./routes/route-deps.ts";
import { startingFetch } from "./startup-gate.ts";
import { VersionHub } from "./sse/version-hub.ts";

export interface StartServerConfig {
  /** Defaults to `loadApiEnv()`: this process's env. */
  env?: ApiEnv;
  /** A database the caller owns (not closed by close()); otherwise one is opened from DATABASE_URL. */
  db?: DbHandle;
  /**
   * A queue the caller owns (the single-process service's, whose worker consumes it). Required
   * outside fleet mode: an API whose flush jobs nobody runs is never what anyone wants, and the one
   * place that puts API and worker in one process is @condense/service.
   */
  jobQueue?: JobQueue<CondenseJobs>;
  /** Listen on this Unix socket instead of CONDENSE_HOST:CONDENSE_PORT (the per-user local service). */
  socketPath?: string;
  /** A registry other parts of the process also report into (the single-process service's worker). */
  metrics?: ApiMetrics;
  logger?: Logger;
  fallbackState?: () => Promise<FallbackState>;
  /** Handed-off summarizer models (memory only), shared with the worker runtime of the same process. */
  summarizerHandOffs?: SummarizerHandOffPort;
}

export interface RunningServer {
  url: string;
  app: OpenAPIHono<AppEnv>;
  hub: VersionHub;
  /** The queue flush jobs go to; an embedded worker attaches its processor here. */
  jobQueue: JobQueue<CondenseJobs>;
  db: DbHandle;
  httpServer: Server;
  close(): Promise<void>;
}

export async function startServer(config: StartServerConfig = {}): Promise<RunningServer> {
  const env = config.env ?? loadApiEnv();
  const logger = config.logger ?? createLogger(env.logLevel);
  const cleanups: (() => Promise<unknown>)[] = [];
  const runCleanups = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        logger.warn({ err }, "shutdown step failed");
      }
    }
  };

  // The port opens first and answers while the dependencies come up: /healthz 200, /readyz 503 with
  // what the API waits for, everything else 503 `unavailable` (retry). Postgres or Redis being down at
  // startup is waited out with backoff, never a crash.
  const startup = newStartupState();
  let handle: (req: Request) => Response | Promise<Response> = startingFetch(startup);
  const fetch = (req: Request) => handle(req);
  const server = await new Promise<Server>((resolve, reject) => {
    if (config.socketPath) {
      const s = createAdaptorServer({ fetch }) as Server;
      s.once("error", reject);
      s.listen(config.socketPath, () => resolve(s));
      return;
    }
    const s = serve({ fetch, port: env.port, hostname: env.host }, () => resolve(s as Server)) as Server;
    s.once("error", reject);
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );

  try {
    const db =
      config.db ??
      (await untilAvailable(
        "database",
        async () => {
          const h = await createDb(env.databaseUrl);
          try {
            if (env.migrate) await migrateDb(h);
            else await pingDb(h.db);
            return h;
          } catch (err) {
            await h.close().catch(() => {});
            throw err;
          }
        },
        { logger, state: startup },
      ));
    if (!config.db) cleanups.push(() => db.close());

    let jobQueue = config.jobQueue;
    if (!jobQueue) {
      if (env.mode !== "fleet") {
        throw new Error(
          "the API without REDIS_URL needs a worker in the same process: start it with `condense serve` (or startSingleProcessService from @condense/service), or set REDIS_URL and run `condense worker`",
        );
      }
      // Redis may come up after the API: the queue's first connection is retried with backoff.
      const q = await untilAvailable(
        "redis",
        () => createBullmqQueue({ catalog: condenseJobs, redisUrl: env.redisUrl, prefix: env.redisPrefix }),
        { logger, state: startup },
      );
      cleanups.push(() => q.close(env.shutdownGraceMs));
      jobQueue = q;
    }

    let rateLimiter: RateLimiter | null = null;
    let hubRedis: { publisher: Redis; subscriber: Redis; prefix: string } | undefined;
    const policy = { perSecond: env.rateLimitPerSec, burst: env.rateLimitBurst };
    if (env.mode === "fleet") {
      // Fail-fast connection: a Redis outage must surface as an error, never a hung request.
      const publisher = await producerConnection(env.redisUrl);
      publisher.on("error", () => {});
      const subscriber = await workerConnection(env.redisUrl);
      subscriber.on("error", () => {});
      cleanups.push(async () => {
        publisher.disconnect();
        subscriber.disconnect();
      });
      hubRedis = { publisher, subscriber, prefix: env.redisPrefix };
      if (policy.perSecond > 0) rateLimiter = new RedisRateLimiter(publisher, env.redisPrefix, policy);
    } else if (policy.perSecond > 0) {
      rateLimiter = new MemoryRateLimiter(policy);
    }

    const hub = new VersionHub({
      readVersions: (keys) => getSessionVersions(db.db, keys),
      pollMs: env.ssePollMs,
      ...(hubRedis ? { redis: hubRedis } : {}),
    });
    await hub.start();
    cleanups.push(() => hub.close());

    const metrics = config.metrics ?? createApiMetrics({ defaultMetrics: true });
    const apiQueue = apiQueueFrom(jobQueue);
    metrics.scrapeGauge(
      "condense_api_queue_waiting",
      "Jobs waiting in the flush queue",
      async () => (await apiQueue.depth()).waiting,
    );
    metrics.scrapeGauge(
      "condense_api_queue_active",
      "Jobs running in the flush queue",
      async () => (await apiQueue.depth()).active,
    );

    // Revocations made anywhere (another replica, `condense key revoke` on this database) reach the
    // cache when they commit; a reconnect of the feed may have missed some, so it starts over.
    const keyCache = new TenantKeyCache(db.db, DEFAULT_APP_CONFIG.keyCacheTtlMs);
    const feed = await subscribeKeyRevocations(db.db, {
      onRevoked: (id) => keyCache.forgetKey(id),
      onResync: () => keyCache.forgetAll(),
    });
    cleanups.push(() => feed.close());

    const app = newApp({
      keyCache,
      db: db.db,
      queue: apiQueue,
      config: appConfigFromEnv(env),
      logger,
      metrics,
      rateLimiter,
      hub,
      ...(config.fallbackState ? { fallbackState: config.fallbackState } : {}),
      ...(config.summarizerHandOffs ? { summarizerHandOffs: config.summarizerHandOffs } : {}),
    });

    handle = app.fetch;
    startup.ready = true;
    // The server's own close below replaces the early-failure cleanup.
    cleanups.splice(0, 1);
    let url: string;
    if (config.socketPath) {
      url = `unix:${config.socketPath}`;
    } else {
      const addr = server.address() as AddressInfo;
      const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
      url = `http://${host}:${addr.port}`;
    }
    logger.info({ url, mode: env.mode, database: db.target.driver, queue: jobQueue.kind }, "condense api listening");

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        logger.info({ graceMs: env.shutdownGraceMs, sseStreams: hub.openStreams }, "shutting down");
        // SSE loops watch the hub's signal; ending them first lets server.close() finish.
        await hub.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive sockets become idle as their last response ends; close them as they do.
        server.closeIdleConnections();
        const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
        let timer: NodeJS.Timeout | undefined;
        const forced = await Promise.race([
          closed.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), env.shutdownGraceMs);
          }),
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

    return { url, app, hub, jobQueue, db, httpServer: server, close };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}
