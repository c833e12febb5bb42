/**
 * The fleet deployment for the end-to-end suite: the API through `startServer` on its own Postgres
 * database and Redis key prefix, and two worker processes (`apps/worker/src/main.ts`) on the same
 * database and queue. Everything it creates is removed by `stop()`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { loadApiEnv, startServer, type RunningServer } from "@condense/api";
import { createApiKey, ensureTenant } from "@condense/db";
import { Redis } from "ioredis";
import postgres from "postgres";
import { REPO } from "./pi-runner.ts";

export interface FleetStack {
  url: string;
  apiKey: string;
  databaseUrl: string;
  prefix: string;
  server: RunningServer;
  workers: ChildProcess[];
  /** Resolves once no flush request is queued (bounded); false on timeout. */
  waitIdle(timeoutMs?: number): Promise<boolean>;
  stop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function startFleet(
  adminDatabaseUrl: string,
  redisUrl: string,
  summarizerConfig: string,
  workerCount = 2,
): Promise<FleetStack> {
  const suffix = randomBytes(4).toString("hex");
  const dbName = `condense_e2e_${suffix}`;
  const prefix = `condense-e2e-${suffix}`;
  const admin = postgres(adminDatabaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${dbName}`);
  const databaseUrl = withDatabase(adminDatabaseUrl, dbName);
  const workers: ChildProcess[] = [];
  let server: RunningServer | undefined;
  const stop = async () => {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.exitCode !== null) return resolve();
            w.once("exit", () => resolve());
            w.kill("SIGTERM");
            setTimeout(() => {
              w.kill("SIGKILL");
              resolve();
            }, 15_000).unref();
          }),
      ),
    );
    await server?.close().catch(() => {});
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
    try {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== "0");
    } finally {
      redis.disconnect();
    }
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.end({ timeout: 5 });
  };
  try {
    server = await startServer({
      env: loadApiEnv({
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        CONDENSE_REDIS_PREFIX: prefix,
        PORT: "0",
        LOG_LEVEL: "warn",
        CONDENSE_SSE_POLL_MS: "100",
        CONDENSE_RATE_LIMIT_PER_SEC: "0",
        CONDENSE_SHUTDOWN_GRACE_MS: "2000",
      }),
    });
    await ensureTenant(server.db.db, { id: "e2e" });
    const key = await createApiKey(server.db.db, { tenantId: "e2e", label: "e2e" });
    for (let i = 1; i <= workerCount; i++) {
      const w = spawn(join(REPO, "node_modules/.bin/tsx"), [join(REPO, "apps/worker/src/main.ts")], {
        cwd: REPO,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          CONDENSE_REDIS_PREFIX: prefix,
          WORKER_ID: `e2e-worker-${i}`,
          CONDENSE_MIGRATE: "false",
          CONDENSE_SUMMARIZER_CONFIG: summarizerConfig,
          WORKER_SHUTDOWN_GRACE_MS: "3000",
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      workers.push(w);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`worker ${i} did not report ready`)), 60_000);
        w.once("message", () => {
          clearTimeout(t);
          resolve();
        });
        w.once("exit", (code) => {
          clearTimeout(t);
          reject(new Error(`worker ${i} exited with ${code}`));
        });
      });
    }
    const waitIdle = async (timeoutMs = 90_000) => {
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        const until = Date.now() + timeoutMs;
        while (Date.now() < until) {
          const [row] = await sql<
            { n: number }[]
          >`select count(*)::int as n from flush_requests where status = 'queued'`;
          if ((row?.n ?? 0) === 0) return true;
          await new Promise((r) => setTimeout(r, 250));
        }
        return false;
      } finally {
        await sql.end({ timeout: 5 });
      }
    };
    return { url: server.url, apiKey: key.key, databaseUrl, prefix, server, workers, waitIdle, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
