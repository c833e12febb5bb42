/**
 * The single-process service's views: the local service's own settings, and the worker it runs in
 * process (which has its own defaults: 2 jobs at a time, 5 s shutdown grace, silent unless a log
 * level is set, always migrating its database, never on Redis).
 */
import type { LogLevel } from "./api-config.ts";
import { dataRoot } from "./data-dir.ts";
import { envReader, type Env, type ReadOptions } from "./env-reader.ts";
import { workerConfig, type WorkerView } from "./worker-config.ts";

export interface ServiceConfig {
  dataDir: string;
  /** Stop after this long with no client and no flush; 0 never. */
  idleMs: number;
  logLevel: LogLevel;
  /** The nice value the service lowers itself to (0 leaves it). */
  nice: number;
  /** Which WebAssembly compiler tier runs its PGlite (packages/db/src/pglite-wasm-tier.ts). */
  pgliteTier: "baseline" | "optimizing";
}

export function serviceConfig(env: Env, options: ReadOptions = {}): ServiceConfig {
  const r = envReader(env, "local service", options);
  const config: ServiceConfig = {
    dataDir: dataRoot(env),
    idleMs: r.get("CONDENSE_SERVICE_IDLE_MS"),
    logLevel: r.get("CONDENSE_LOG_LEVEL"),
    nice: r.get("CONDENSE_SERVICE_NICE"),
    pgliteTier: r.get("CONDENSE_SERVICE_PGLITE_TIER"),
  };
  r.done();
  return config;
}

export function serviceWorkerConfig(env: Env, databaseUrl: string, options: ReadOptions = {}): WorkerView {
  const r = envReader(env, "service worker", options);
  const base = workerConfig(
    { ...env, DATABASE_URL: databaseUrl, REDIS_URL: undefined, CONDENSE_MIGRATE: "true" },
    options,
  );
  return {
    ...base,
    concurrency: r.isSet("CONDENSE_WORKER_CONCURRENCY") ? base.concurrency : 2,
    shutdownGraceMs: r.isSet("CONDENSE_WORKER_SHUTDOWN_GRACE_MS") ? base.shutdownGraceMs : 5_000,
    logLevel: r.isSet("CONDENSE_LOG_LEVEL") ? base.logLevel : "silent",
  };
}
