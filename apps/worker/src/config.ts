/**
 * The worker's configuration from the environment, parsed once by one zod schema. Empty strings
 * count as unset, so `FOO=` in a compose file falls back to the default.
 *
 * DATABASE_URL + REDIS_URL: fleet mode (Postgres, BullMQ). Neither: embedded mode (PGlite in
 * CONDENSE_DATA_DIR, in-process queue). DATABASE_URL alone: Postgres with the in-process queue (one
 * process runs API and worker). REDIS_URL alone is refused: workers sharing a queue must share a
 * database, and a local PGlite cannot be shared.
 */
import { hostname } from "node:os";
import { z } from "zod";
import type { SummarizerConfigInput } from "@condense/summarizer";

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z.enum(["1", "0", "true", "false", "yes", "no"]).default(def ? "true" : "false").transform((v) => v === "1" || v === "true" || v === "yes");

export const WorkerEnvSchema = z.object({
  DATABASE_URL: z.string().refine((u) => /^(postgres(ql)?:\/\/|pglite:)/.test(u), "must be postgres://… or pglite:[dir]").optional(),
  REDIS_URL: z.string().refine((u) => /^rediss?:\/\//.test(u), "must be redis://… or rediss://…").optional(),
  CONDENSE_DATA_DIR: z.string().min(1).default("./.condense/data"),
  CONDENSE_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/).default("condense"),
  WORKER_CONCURRENCY: int(8, 1),
  WORKER_ID: z.string().min(1).max(200).optional(),
  /** Summarizer calls in flight per flush. */
  WORKER_BATCH_CONCURRENCY: int(4, 1),
  WORKER_SHUTDOWN_GRACE_MS: int(10_000, 0),
  /** BullMQ lock: a job whose lock is not renewed for this long is re-delivered elsewhere. */
  WORKER_LOCK_MS: int(30_000, 500),
  WORKER_STALLED_INTERVAL_MS: int(30_000, 200),
  /** Re-enqueue a session whose newest queued flush request is older than this (0 = never). */
  CONDENSE_REQUEUE_AFTER_MS: int(120_000, 0),
  CONDENSE_REQUEUE_INTERVAL_MS: int(30_000, 100),
  CONDENSE_MIGRATE: bool(true),
  /** "provider/model-id", or "deterministic"/"default" for no model. */
  CONDENSE_SUMMARIZER_MODEL: z.string().optional(),
  CONDENSE_SUMMARIZER_FALLBACK_MODEL: z.string().optional(),
  /** JSON of the full summarizer config (custom models, timeouts, retries); the two vars above win. */
  CONDENSE_SUMMARIZER_CONFIG: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export interface WorkerConfig {
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
  summarizer: SummarizerConfigInput;
  logLevel: z.output<typeof WorkerEnvSchema>["LOG_LEVEL"];
}

export class WorkerConfigError extends Error {
  constructor(message: string) {
    super(`invalid worker environment: ${message}`);
    this.name = "WorkerConfigError";
  }
}

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(WorkerEnvSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v.trim() !== "") cleaned[key] = v.trim();
  }
  const parsed = WorkerEnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new WorkerConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  const e = parsed.data;
  const pgUrl = e.DATABASE_URL && !e.DATABASE_URL.startsWith("pglite:") ? e.DATABASE_URL : undefined;
  if (e.REDIS_URL && !pgUrl) throw new WorkerConfigError("REDIS_URL is set but DATABASE_URL is not a postgres:// URL; fleet workers must share one Postgres");
  let summarizer: SummarizerConfigInput = {};
  if (e.CONDENSE_SUMMARIZER_CONFIG) {
    try { summarizer = JSON.parse(e.CONDENSE_SUMMARIZER_CONFIG) as SummarizerConfigInput; } catch (err) {
      throw new WorkerConfigError(`CONDENSE_SUMMARIZER_CONFIG is not JSON: ${(err as Error).message}`);
    }
  }
  if (e.CONDENSE_SUMMARIZER_MODEL) summarizer = { ...summarizer, summarizerModel: e.CONDENSE_SUMMARIZER_MODEL };
  if (e.CONDENSE_SUMMARIZER_FALLBACK_MODEL) summarizer = { ...summarizer, summarizerFallbackModel: e.CONDENSE_SUMMARIZER_FALLBACK_MODEL };
  return {
    mode: pgUrl && e.REDIS_URL ? "fleet" : pgUrl ? "postgres-in-process" : "embedded",
    databaseUrl: e.DATABASE_URL ?? `pglite:${e.CONDENSE_DATA_DIR}`,
    redisUrl: e.REDIS_URL ?? null,
    dataDir: e.CONDENSE_DATA_DIR,
    redisPrefix: e.CONDENSE_REDIS_PREFIX,
    concurrency: e.WORKER_CONCURRENCY,
    workerId: e.WORKER_ID ?? `${hostname()}:${process.pid}`,
    batchConcurrency: e.WORKER_BATCH_CONCURRENCY,
    shutdownGraceMs: e.WORKER_SHUTDOWN_GRACE_MS,
    lockDurationMs: e.WORKER_LOCK_MS,
    stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
    requeueAfterMs: e.CONDENSE_REQUEUE_AFTER_MS,
    requeueIntervalMs: e.CONDENSE_REQUEUE_INTERVAL_MS,
    migrate: e.CONDENSE_MIGRATE,
    summarizer,
    logLevel: e.LOG_LEVEL,
  };
}
