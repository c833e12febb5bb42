/**
 * The image's runtime layout, built here without Docker: the compiled bundles (`pnpm build:dist`)
 * plus a production-only install (`pnpm deploy:prod`, the same two steps the Dockerfile's build
 * and prod-deps stages run) in a temp directory outside the repository. From it, with plain `node`
 * and no tsx or dev dependency anywhere node could find one, the migration job, the API (its entry
 * point and `condense serve` in fleet mode) and the workers (their entry point and `condense worker`)
 * run against the real Postgres and Redis, and a capture -> flush -> state round trip goes through
 * each API; `condense serve` in embedded mode (PGlite) does the same on its own.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "@condense/db";
import { compileDist, ENTRIES } from "../../infra/build/compile-dist.ts";
import { deployProdDeps } from "../../infra/build/prod-deps.ts";
import { freePort } from "../integration/support/throwaway-services.ts";
import { stageEnv } from "./support/dockerfile.ts";
import { captureFlushState } from "./support/round-trip.ts";
import { runToExit, startProcess, waitForHttp, type ServiceProcess } from "./support/service-process.ts";

const databaseUrl = inject("databaseUrl");
const redisUrl = inject("redisUrl");
const haveServices = databaseUrl.startsWith("postgres") && redisUrl !== "";
if (!haveServices)
  console.warn("[condense] compiled-layout test SKIPPED: needs a real Postgres (DATABASE_URL) and Redis (REDIS_URL)");

/** The runtime stage's ENV (NODE_ENV=production, source maps), so these processes run as the image's do. */
const RUNTIME_ENV = stageEnv(
  readFileSync(join(import.meta.dirname, "../../infra/docker/Dockerfile"), "utf8"),
  "runtime",
);

/** Dev-only packages that must not be in the runtime's node_modules. */
const DEV_ONLY = [
  "tsx",
  "vitest",
  "typescript",
  "testcontainers",
  "autocannon",
  "esbuild",
  "drizzle-kit",
  "fast-check",
  "vite",
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe.skipIf(!haveServices)("compiled layout (the image's runtime stage, built locally)", () => {
  let root = "";
  let db: ScratchDatabase | undefined;
  const prefix = `condense-deploy-${randomBytes(4).toString("hex")}`;
  const adminKey = randomBytes(16).toString("hex");
  const procs: ServiceProcess[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "condense-runtime-"));
    await compileDist(join(root, "dist"));
    deployProdDeps(root, { offline: true });
    db = await createScratchDatabase(databaseUrl, "condense_deploy");
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await db?.drop();
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
    if (root) rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("holds compiled JavaScript, the migrations and production dependencies only", () => {
    expect(RUNTIME_ENV.NODE_ENV).toBe("production");
    expect(readdirSync(root).sort()).toEqual(["LICENSE", "dist", "node_modules", "package.json"]);
    for (const name of Object.keys(ENTRIES)) expect(statSync(join(root, "dist/bin", `${name}.js`)).isFile()).toBe(true);
    const dist = filesUnder(join(root, "dist"));
    expect(
      dist.filter((f) => f.endsWith(".ts")),
      "no TypeScript in dist",
    ).toEqual([]);
    expect(dist.some((f) => f.endsWith("migrations/meta/_journal.json"))).toBe(true);
    expect(dist.filter((f) => f.endsWith(".sql")).length).toBe(
      readdirSync(join(import.meta.dirname, "../../packages/db/migrations")).filter((f) => f.endsWith(".sql")).length,
    );
    for (const pkg of DEV_ONLY)
      expect(existsSync(join(root, "node_modules", pkg)), `${pkg} in the runtime`).toBe(false);
    // Workspace packages are inlined: their TypeScript source is not shipped, and no bundle imports one.
    expect(existsSync(join(root, "node_modules/@condense"))).toBe(false);
    for (const name of Object.keys(ENTRIES))
      expect(readFileSync(join(root, "dist/bin", `${name}.js`), "utf8")).not.toMatch(/from\s*["']@condense\//);
    // The patched postgres.js ships (patches/postgres@3.4.9.patch), not the registry's copy.
    const patch = readFileSync(join(import.meta.dirname, "../../patches/postgres@3.4.9.patch"), "utf8");
    const patchedFile = /^\+\+\+ b\/(\S+)/m.exec(patch)![1]!;
    const added = patch
      .split("\n")
      .find((l) => l.startsWith("+") && !l.startsWith("+++") && l.trim().length > 12)!
      .slice(1)
      .trim();
    expect(readFileSync(join(root, "node_modules/postgres", patchedFile), "utf8")).toContain(added);
  });

  it("migrates, serves and consumes with plain node: capture -> flush -> state through each API", async () => {
    const run = { cwd: root };
    const fleetEnv = { ...RUNTIME_ENV, DATABASE_URL: db!.url, REDIS_URL: redisUrl, CONDENSE_REDIS_PREFIX: prefix };
    const migrated = await runToExit("condense migrate", ["node", "dist/bin/condense.js", "migrate"], {
      ...run,
      env: fleetEnv,
    });
    expect(migrated).toMatch(/migrations applied/);

    const apiEnv = {
      ...fleetEnv,
      CONDENSE_HOST: "127.0.0.1",
      CONDENSE_MIGRATE: "false",
      CONDENSE_ADMIN_KEY: adminKey,
      CONDENSE_RATE_LIMIT_PER_SEC: "0",
    };
    const [apiPort, servePort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const api = startProcess("api.js", ["node", "dist/bin/api.js"], {
      ...run,
      env: { ...apiEnv, CONDENSE_PORT: String(apiPort) },
    });
    const serve = startProcess(
      "condense serve",
      ["node", "dist/bin/condense.js", "serve", "--port", String(servePort), "--host", "127.0.0.1"],
      { ...run, env: apiEnv },
    );
    const worker = startProcess("worker.js", ["node", "dist/bin/worker.js"], {
      ...run,
      env: { ...fleetEnv, CONDENSE_WORKER_ID: `${prefix}-w1`, CONDENSE_MIGRATE: "false" },
    });
    const cliWorker = startProcess(
      "condense worker",
      ["node", "dist/bin/condense.js", "worker", "--metrics-port", String(metricsPort)],
      { ...run, env: { ...fleetEnv, CONDENSE_WORKER_ID: `${prefix}-w2`, CONDENSE_MIGRATE: "false" } },
    );
    procs.push(api, serve, worker, cliWorker);
    await Promise.all([
      waitForHttp(api, `http://127.0.0.1:${apiPort}/readyz`),
      waitForHttp(serve, `http://127.0.0.1:${servePort}/readyz`),
      waitForHttp(cliWorker, `http://127.0.0.1:${metricsPort}/metrics`),
      new Promise<void>((resolve, reject) => {
        worker.proc.once("message", () => resolve());
        void worker.exited.then((code) => reject(new Error(`worker.js exited with ${code}:\n${worker.output()}`)));
      }),
    ]);

    for (const url of [`http://127.0.0.1:${apiPort}`, `http://127.0.0.1:${servePort}`]) {
      const trip = await captureFlushState(url, adminKey);
      expect(trip.state.records.map((r) => r.key).sort()).toEqual(["call_1@1700000000100", "call_2@1700000000200"]);
      expect(trip.state.records.every((r) => /^t\d+$/.test(r.shortRef))).toBe(true);
      expect(trip.state.summaries[0]!.text.length).toBeGreaterThan(0);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^condense_worker_process_cpu_user_seconds_total /m);
    for (const p of procs) expect(p.proc.exitCode, `${p.name} still running:\n${p.output()}`).toBeNull();
  }, 180_000);

  it("serves embedded (PGlite and its wasm from node_modules, migrations from dist) with plain node", async () => {
    const port = await freePort();
    const embedded = startProcess(
      "condense serve (embedded)",
      [
        "node",
        "dist/bin/condense.js",
        "serve",
        "--port",
        String(port),
        "--host",
        "127.0.0.1",
        "--data-dir",
        join(root, "data"),
      ],
      {
        cwd: root,
        env: { ...RUNTIME_ENV, CONDENSE_ADMIN_KEY: adminKey, CONDENSE_RATE_LIMIT_PER_SEC: "0" },
      },
    );
    procs.push(embedded);
    await waitForHttp(embedded, `http://127.0.0.1:${port}/readyz`, 90_000);
    const trip = await captureFlushState(`http://127.0.0.1:${port}`, adminKey);
    expect(trip.state.records).toHaveLength(2);
    expect(existsSync(join(root, "data/pglite"))).toBe(true);
    await embedded.stop();
    expect(embedded.proc.exitCode ?? embedded.proc.signalCode, embedded.output()).toBe(0);
  }, 180_000);
});
