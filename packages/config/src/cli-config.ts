/**
 * The CLI's view: which database and data directory an operator command works on, which API it asks,
 * and `condense worker`'s metrics endpoint. Flags win over these; a command that runs the API or a
 * worker hands its env (with flags applied) to apiConfig or workerConfig.
 */
import { dataRoot } from "./data-dir.ts";
import { envReader, type Env, type ReadOptions } from "./env-reader.ts";

export interface CliConfig {
  /** DATABASE_URL when set; otherwise commands open the data directory's PGlite. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  dataDir: string;
  /** A running API (CONDENSE_URL) and its keys. */
  url: string | undefined;
  apiKey: string;
  adminKey: string;
  metricsPort: number | undefined;
  metricsHost: string;
}

export function cliConfig(env: Env, options: ReadOptions = {}): CliConfig {
  const r = envReader(env, "CLI", options);
  const config: CliConfig = {
    databaseUrl: r.get("DATABASE_URL"),
    redisUrl: r.get("REDIS_URL"),
    dataDir: dataRoot(env),
    url: r.get("CONDENSE_URL"),
    apiKey: r.get("CONDENSE_API_KEY"),
    adminKey: r.get("CONDENSE_ADMIN_KEY"),
    metricsPort: r.get("CONDENSE_WORKER_METRICS_PORT"),
    metricsHost: r.get("CONDENSE_WORKER_METRICS_HOST"),
  };
  r.done();
  return config;
}
