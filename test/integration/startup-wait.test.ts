/**
 * A worker started while Postgres is unreachable keeps retrying with backoff and says what it waits
 * for, instead of exiting at migration (issue 17 item 8). The database URL points at a port where
 * nothing listens (connections refused); once the worker has logged several waits, a TCP proxy
 * opens on that port and forwards to the real Postgres: the worker migrates, reports ready, and
 * commits a flush; the same for Redis. The API does the same: its port opens at once, /readyz says it waits for the
 * database, requests get 503 `unavailable`, and it becomes ready when the port opens. The shared Postgres and Redis are never touched beyond a scratch database and a
 * private key prefix.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, inject, it } from "vitest";
import { loadApiEnv, startServer } from "@condense/api";
import { createDb, ensureTenant, getFlushRequest, migrateDb } from "@condense/db";
import {
  condenseJobs,
  createBullmqQueue,
  createInProcessQueue,
  type BullmqJobQueue,
  type CondenseJobs,
} from "@condense/queue";
import {
  captureBatches,
  dropRedisPrefix,
  requestAndEnqueue,
  scratchDatabase,
  spawnWorker,
  stopWorker,
  waitUntil,
  type ScratchPg,
  type WorkerProc,
} from "./support/worker-fleet.ts";

const pgAdmin = inject("databaseUrl").startsWith("postgres") ? inject("databaseUrl") : "";
const redisUrl = inject("redisUrl");

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Forwards every connection on `port` to `target` (host:port) once started. */
async function startProxy(port: number, target: URL): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe.skipIf(!pgAdmin || !redisUrl)("worker startup while Postgres is unreachable", () => {
  let scratch: ScratchPg | undefined;
  let worker: WorkerProc | undefined;
  let proxy: { close(): Promise<void> } | undefined;
  let producer: BullmqJobQueue<CondenseJobs> | undefined;
  const prefix = `condense-it-wait-${Math.random().toString(36).slice(2, 8)}`;
  afterAll(async () => {
    if (worker) await stopWorker(worker);
    await producer?.close(0);
    await proxy?.close();
    await scratch?.drop();
    await dropRedisPrefix(redisUrl, prefix);
  }, 60_000);

  it("waits with backoff, says it waits for the database, then starts and flushes once the port opens", async () => {
    scratch = await scratchDatabase(pgAdmin);
    const real = new URL(scratch.url);
    const port = await freePort();
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(port);
    worker = spawnWorker("wait-1", {
      DATABASE_URL: viaProxy.toString(),
      REDIS_URL: redisUrl,
      CONDENSE_REDIS_PREFIX: prefix,
      LOG_LEVEL: "info",
    });
    const waits = () =>
      worker!
        .logs()
        .split("\n")
        .filter((l) => l.includes('"waiting for database')).length;
    await waitUntil(
      async () => waits() >= 3,
      30_000,
      "three logged waits for the database",
      100,
      () => worker!.logs().slice(-2000),
    );
    expect(worker.proc.exitCode).toBeNull();
    const first = JSON.parse(
      worker
        .logs()
        .split("\n")
        .find((l) => l.includes('"waiting for database'))!,
    ) as Record<string, unknown>;
    expect(first).toMatchObject({ dependency: "database", level: 40 });
    expect(String(first.err)).toMatch(/ECONNREFUSED|connect/i);

    proxy = await startProxy(port, real);
    await worker.ready;
    expect(worker.logs()).toContain('"database is available"');

    const db = await createDb(scratch.url, { max: 2 });
    try {
      await migrateDb(db);
      await ensureTenant(db.db, { id: "wait" });
      await captureBatches(db.db, "wait", "s1", "c1", [
        {
          turnIndex: 0,
          timestamp: 1,
          assistantText: "",
          toolCalls: [
            {
              toolCallId: "a",
              toolName: "bash",
              args: {},
              resultText: "x\n".repeat(500),
              isError: false,
              resultTimestamp: 2,
            },
          ],
        },
      ]);
      producer = await createBullmqQueue({ catalog: condenseJobs, redisUrl, prefix });
      const req = await requestAndEnqueue(db.db, producer, "wait", "s1");
      await waitUntil(
        async () => (await getFlushRequest(db.db, "wait", req.id))?.status === "committed",
        30_000,
        "the flush to commit",
      );
    } finally {
      await db.close();
    }
  }, 120_000);

  it("the API listens at once, says in /readyz that it waits for the database, answers 503, and becomes ready", async () => {
    const db = await scratchDatabase(pgAdmin);
    const port = await freePort();
    const apiPort = await freePort();
    const viaProxy = new URL(db.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(port);
    let apiProxy: { close(): Promise<void> } | undefined;
    const starting = startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: String(apiPort),
        DATABASE_URL: viaProxy.toString(),
        LOG_LEVEL: "silent",
        CONDENSE_RATE_LIMIT_PER_SEC: "0",
      }),
    });
    try {
      const base = `http://127.0.0.1:${apiPort}`;
      let ready: { status: number; body: any } | undefined;
      await waitUntil(
        async () => {
          try {
            const r = await fetch(`${base}/readyz`);
            ready = { status: r.status, body: await r.json() };
            return ready.body.attempts >= 2;
          } catch {
            return false;
          }
        },
        30_000,
        "the starting API to answer /readyz",
      );
      expect(ready).toMatchObject({ status: 503, body: { status: "starting", waitingFor: "database" } });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const early = await fetch(`${base}/v1/sessions`, { headers: { authorization: "Bearer x" } });
      expect(early.status).toBe(503);
      expect(((await early.json()) as { error: { code: string } }).error.code).toBe("unavailable");
      apiProxy = await startProxy(port, new URL(db.url));
      const server = await starting;
      try {
        const r = await fetch(`${base}/readyz`);
        expect(r.status).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      await starting.then((s) => s.close()).catch(() => {});
      await apiProxy?.close();
      await db.drop();
    }
  }, 120_000);

  it("a worker started while Redis is unreachable waits for it the same way, then consumes", async () => {
    const db = await scratchDatabase(pgAdmin);
    const port = await freePort();
    const redisProxyPrefix = `${prefix}-r`;
    let redisProxy: { close(): Promise<void> } | undefined;
    const w = spawnWorker("wait-redis", {
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      CONDENSE_REDIS_PREFIX: redisProxyPrefix,
      LOG_LEVEL: "info",
    });
    try {
      const waits = () =>
        w
          .logs()
          .split("\n")
          .filter((l) => l.includes('"waiting for redis')).length;
      await waitUntil(
        async () => waits() >= 2,
        60_000,
        "two logged waits for redis",
        100,
        () => w.logs().slice(-2000),
      );
      expect(w.proc.exitCode).toBeNull();
      redisProxy = await startProxy(port, new URL(redisUrl.replace(/^redis/, "http")));
      await w.ready;
      expect(w.logs()).toContain('"redis is available"');
    } finally {
      await stopWorker(w);
      await redisProxy?.close();
      await dropRedisPrefix(redisUrl, redisProxyPrefix);
      await db.drop();
    }
  }, 120_000);
});
