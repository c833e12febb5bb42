/**
 * `condense serve`: the API over HTTP. Embedded (default): one process with PGlite in the data
 * directory, the in-process queue, a worker and the API, plus a local tenant and key. Fleet (when
 * DATABASE_URL is postgres:// and REDIS_URL is set): the API only; run workers with `condense worker`.
 */
import { join, resolve } from "node:path";
import { loadApiEnv, startServer, ApiEnvError } from "@condense/api";
import { localApiKey, LOCAL_TENANT } from "@condense/embedded";
import { createRuntime, loadWorkerConfig } from "@condense/worker";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { DEFAULT_DATA_DIR } from "../database-target.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";
import { waitForShutdown } from "../shutdown.ts";

export const SERVE_HELP = `condense serve [--port <port>] [--host <host>] [--data-dir <dir>]

Embedded (default): API + worker in one process, data in <data-dir>/pglite (default ./.condense).
Prints the local API key (tenant "${LOCAL_TENANT}", also kept in <data-dir>/api-key).
Fleet: when DATABASE_URL=postgres://... and REDIS_URL are set, runs the API only; start workers with
condense worker, and apply migrations with condense migrate.

Options:
  --port <port>     default PORT or 8787
  --host <host>     default HOST or 127.0.0.1
  --data-dir <dir>  embedded data directory

Docs of the running API: http://<host>:<port>/docs · OpenAPI: /openapi.json · metrics: /metrics
`;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ port?: string; host?: string; "data-dir"?: string }>("serve", argv, {
    port: { type: "string" },
    host: { type: "string" },
    "data-dir": { type: "string" },
  });
  if (help) { io.out(SERVE_HELP); return EXIT.ok; }
  if (positionals.length > 0) throw new CliError(`unexpected argument: ${positionals[0]}`, EXIT.usage, "see: condense serve --help");
  const fleet = !!io.env.DATABASE_URL?.startsWith("postgres") && !!io.env.REDIS_URL;
  const overrides: Record<string, string> = {};
  if (values.port !== undefined) overrides.PORT = String(intFlag("port", values.port, 8787, 0));
  if (values.host !== undefined) overrides.HOST = values.host;

  if (fleet) {
    const env = parseApiEnv({ ...io.env, ...overrides });
    const server = await startServer({ env });
    io.err(`condense api (fleet) listening on ${server.url} — docs ${server.url}/docs; run workers with: condense worker\n`);
    await waitForShutdown();
    await server.close();
    return EXIT.ok;
  }

  const dataDir = resolve(values["data-dir"] ?? io.env.CONDENSE_DATA_DIR ?? DEFAULT_DATA_DIR);
  const pglite = join(dataDir, "pglite");
  const runtime = await createRuntime(loadWorkerConfig({
    CONDENSE_DATA_DIR: pglite,
    CONDENSE_SUMMARIZER_MODEL: io.env.CONDENSE_SUMMARIZER_MODEL,
    CONDENSE_SUMMARIZER_FALLBACK_MODEL: io.env.CONDENSE_SUMMARIZER_FALLBACK_MODEL,
    CONDENSE_SUMMARIZER_CONFIG: io.env.CONDENSE_SUMMARIZER_CONFIG,
    LOG_LEVEL: io.env.LOG_LEVEL ?? "info",
  }));
  try {
    await runtime.start();
    const key = await localApiKey(runtime.db.db, dataDir);
    const env = parseApiEnv({ ...io.env, ...overrides, DATABASE_URL: `pglite:${pglite}`, REDIS_URL: "", CONDENSE_MIGRATE: "false" });
    const server = await startServer({ env, db: runtime.db, jobQueue: runtime.queue });
    io.err(`condense (embedded) listening on ${server.url} — data in ${dataDir}; docs ${server.url}/docs\n`);
    io.err(`API key (tenant ${LOCAL_TENANT}): ${key}\n`);
    await waitForShutdown();
    await server.close();
  } finally {
    await runtime.close();
  }
  return EXIT.ok;
}

function parseApiEnv(env: Record<string, string | undefined>) {
  try { return loadApiEnv(env); } catch (err) {
    if (err instanceof ApiEnvError) throw new CliError(err.message, EXIT.usage, "fix the environment variable(s) named above");
    throw err;
  }
}
