/**
 * The API's view. Fleet mode (Redis-backed queue, rate limits and event fan-out) is chosen by
 * setting REDIS_URL; without it the API runs embedded. The default database is the data directory's
 * PGlite, the one the worker and the CLI open too.
 */
import { dataRoot, pgliteDirOf } from "./data-dir.ts";
import { envReader, type Env, type ReadOptions } from "./env-reader.ts";

export interface ApiConfig {
  mode: "fleet" | "embedded";
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  /** Empty outside fleet mode. */
  redisUrl: string;
  redisPrefix: string;
  /** Empty: the admin routes answer 401. */
  adminKey: string;
  maxRequestBytes: number;
  maxResultBytes: number;
  rateLimitPerSec: number;
  rateLimitBurst: number;
  shutdownGraceMs: number;
  sseHeartbeatMs: number;
  ssePollMs: number;
  fleetWindowMinutes: number;
  migrate: boolean;
  logLevel: LogLevel;
}

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export function apiConfig(env: Env, options: ReadOptions = {}): ApiConfig {
  const r = envReader(env, "API", options);
  const dataDir = dataRoot(env);
  const redisUrl = r.get("REDIS_URL") ?? "";
  const config: ApiConfig = {
    mode: redisUrl ? "fleet" : "embedded",
    host: r.get("CONDENSE_HOST"),
    port: r.get("CONDENSE_PORT"),
    dataDir,
    databaseUrl: r.get("DATABASE_URL") ?? `pglite:${pgliteDirOf(dataDir)}`,
    redisUrl,
    redisPrefix: r.get("CONDENSE_REDIS_PREFIX"),
    adminKey: r.get("CONDENSE_ADMIN_KEY"),
    maxRequestBytes: r.get("CONDENSE_MAX_REQUEST_BYTES"),
    maxResultBytes: r.get("CONDENSE_MAX_RESULT_BYTES"),
    rateLimitPerSec: r.get("CONDENSE_RATE_LIMIT_PER_SEC"),
    rateLimitBurst: r.get("CONDENSE_RATE_LIMIT_BURST"),
    shutdownGraceMs: r.get("CONDENSE_SHUTDOWN_GRACE_MS"),
    sseHeartbeatMs: r.get("CONDENSE_SSE_HEARTBEAT_MS"),
    ssePollMs: r.get("CONDENSE_SSE_POLL_MS"),
    fleetWindowMinutes: r.get("CONDENSE_FLEET_WINDOW_MINUTES"),
    migrate: r.get("CONDENSE_MIGRATE"),
    logLevel: r.get("CONDENSE_LOG_LEVEL"),
  };
  r.done();
  return config;
}
