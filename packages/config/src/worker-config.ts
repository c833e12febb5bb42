/**
 * The worker's view. DATABASE_URL + REDIS_URL: fleet mode (Postgres, BullMQ). Neither: embedded
 * (PGlite in `<data dir>/pglite`, in-process queue). DATABASE_URL alone: Postgres with the in-process
 * queue (one process runs API and worker). REDIS_URL alone is refused: workers sharing a queue must
 * share a database, and a local PGlite cannot be shared.
 */
import { hostname } from "node:os";
import type { LogLevel } from "./api-config.ts";
import { dataRoot, pgliteDirOf } from "./data-dir.ts";
import { envReader, type Env, type ReadOptions } from "./env-reader.ts";

export interface WorkerView {
  mode: "fleet" | "embedded" | "postgres-in-process";
  databaseUrl: string;
  redisUrl: string | null;
  dataDir: string;
  redisPrefix: string;
  concurrency: number;
  workerId: string;
  batchConcurrency: number;
  shutdownGraceMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  requeueAfterMs: number;
  requeueIntervalMs: number;
  migrate: boolean;
  /** CONDENSE_SUMMARIZER_CONFIG with the model variables applied (the summarizer validates it). */
  summarizer: Record<string, unknown>;
  /** Models a session may choose by its summarizerModel setting (CONDENSE_SUMMARIZER_MODELS). */
  sessionModels: string[];
  logLevel: LogLevel;
  retention: {
    intervalMs: number;
    policy: { capturesDays: number; storedBodiesDays: number; flushMetricsDays: number; recoveriesDays: number };
  };
  /** Test harness hooks. */
  traceFile: string | undefined;
  crashAt: string | undefined;
}

export function workerConfig(env: Env, options: ReadOptions = {}): WorkerView {
  const r = envReader(env, "worker", options);
  const dataDir = dataRoot(env);
  const databaseUrl = r.get("DATABASE_URL");
  const redisUrl = r.get("REDIS_URL");
  const pgUrl = databaseUrl && !databaseUrl.startsWith("pglite:") ? databaseUrl : undefined;
  if (redisUrl && !pgUrl)
    r.fail("REDIS_URL", "set only with a postgres:// DATABASE_URL (fleet workers must share one Postgres)");
  let summarizer: Record<string, unknown> = r.get("CONDENSE_SUMMARIZER_CONFIG") ?? {};
  const model = r.get("CONDENSE_SUMMARIZER_MODEL");
  const fallback = r.get("CONDENSE_SUMMARIZER_FALLBACK_MODEL");
  if (model) summarizer = { ...summarizer, summarizerModel: model };
  if (fallback) summarizer = { ...summarizer, summarizerFallbackModel: fallback };
  const config: WorkerView = {
    mode: pgUrl && redisUrl ? "fleet" : pgUrl ? "postgres-in-process" : "embedded",
    databaseUrl: databaseUrl ?? `pglite:${pgliteDirOf(dataDir)}`,
    redisUrl: redisUrl ?? null,
    dataDir,
    redisPrefix: r.get("CONDENSE_REDIS_PREFIX"),
    concurrency: r.get("CONDENSE_WORKER_CONCURRENCY"),
    workerId: r.get("CONDENSE_WORKER_ID") ?? `${hostname()}:${process.pid}`,
    batchConcurrency: r.get("CONDENSE_WORKER_BATCH_CONCURRENCY"),
    shutdownGraceMs: r.get("CONDENSE_WORKER_SHUTDOWN_GRACE_MS"),
    lockDurationMs: r.get("CONDENSE_WORKER_LOCK_MS"),
    stalledIntervalMs: r.get("CONDENSE_WORKER_STALLED_INTERVAL_MS"),
    requeueAfterMs: r.get("CONDENSE_REQUEUE_AFTER_MS"),
    requeueIntervalMs: r.get("CONDENSE_REQUEUE_INTERVAL_MS"),
    migrate: r.get("CONDENSE_MIGRATE"),
    summarizer,
    sessionModels: r.get("CONDENSE_SUMMARIZER_MODELS") ?? [],
    logLevel: r.get("CONDENSE_LOG_LEVEL"),
    retention: {
      intervalMs: r.get("CONDENSE_RETENTION_INTERVAL_MINUTES") * 60_000,
      policy: {
        capturesDays: r.get("CONDENSE_RETENTION_CAPTURES_DAYS"),
        storedBodiesDays: r.get("CONDENSE_RETENTION_STORED_BODIES_DAYS"),
        flushMetricsDays: r.get("CONDENSE_RETENTION_FLUSH_METRICS_DAYS"),
        recoveriesDays: r.get("CONDENSE_RETENTION_RECOVERIES_DAYS"),
      },
    },
    traceFile: r.get("CONDENSE_TRACE_FILE"),
    crashAt: r.get("CONDENSE_CRASH_AT"),
  };
  r.done();
  return config;
}
