/**
 * `condense serve`: the API over HTTP. Single-process (default): the data directory's service from
 * @condense/service (PGlite, in-process queue, worker, API) on CONDENSE_HOST:CONDENSE_PORT, owning the directory.
 * Fleet (when DATABASE_URL is postgres:// and REDIS_URL is set): the API only; run workers with
 * `condense worker`.
 */
import { loadApiEnv, startServer, ApiEnvError } from "@condense/api";
import { cliConfig } from "@condense/config";
import { dataDirAdminKey, DataDirOwnedError, LOCAL_TENANT, startSingleProcessService } from "@condense/service";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { dataDirFrom } from "../database-target.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";
import { waitForShutdown } from "../shutdown.ts";

export const SERVE_HELP = `condense serve [--port <port>] [--host <host>] [--data-dir <dir>]

Single-process (default): API + worker in one process, data in <data-dir> (default CONDENSE_DATA_DIR,
else ~/.pi/agent/condense; PGlite in <data-dir>/pglite). It owns the data directory: while the local
service runs on it, stop that first (condense service stop) or pass another --data-dir.
Prints the local API key (tenant "${LOCAL_TENANT}", also kept in <data-dir>/api-key); the admin key is
CONDENSE_ADMIN_KEY, else <data-dir>/admin-key (condense tenant/key create use it).
Fleet: when DATABASE_URL=postgres://... and REDIS_URL are set, runs the API only; start workers with
condense worker, and apply migrations with condense migrate.

Options:
  --port <port>     default CONDENSE_PORT or 8787
  --host <host>     default CONDENSE_HOST or 127.0.0.1
  --data-dir <dir>  the data directory

Docs of the running API: http://<host>:<port>/docs · OpenAPI: /openapi.json · metrics: /metrics
  (single-process /metrics holds the API's, the worker's and the summarizer's series)
`;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ port?: string; host?: string; "data-dir"?: string }>(
    "serve",
    argv,
    {
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
    },
  );
  if (help) {
    io.out(SERVE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw new CliError(`unexpected argument: ${positionals[0]}`, EXIT.usage, "see: condense serve --help");
  const cli = cliConfig(io.env);
  const fleet = !!cli.databaseUrl?.startsWith("postgres") && !!cli.redisUrl;
  const overrides: Record<string, string> = {};
  if (values.port !== undefined) overrides.CONDENSE_PORT = String(intFlag("port", values.port, 8787, 0));
  if (values.host !== undefined) overrides.CONDENSE_HOST = values.host;

  if (fleet) {
    const env = parseApiEnv({ ...io.env, ...overrides });
    const server = await startServer({ env });
    io.err(
      `condense api (fleet) listening on ${server.url} — docs ${server.url}/docs; run workers with: condense worker\n`,
    );
    await waitForShutdown();
    await server.close();
    return EXIT.ok;
  }

  const dataDir = dataDirFrom(values, io.env);
  const api = parseApiEnv({ ...io.env, ...overrides, DATABASE_URL: "", REDIS_URL: "" });
  let service;
  try {
    service = await startSingleProcessService({
      dataDir,
      role: "condense serve",
      listen: { port: api.port, host: api.host },
      env: { ...io.env, ...overrides, CONDENSE_LOG_LEVEL: api.logLevel },
      adminKey: api.adminKey || dataDirAdminKey(dataDir),
      ...(cli.databaseUrl?.startsWith("postgres") ? { databaseUrl: cli.databaseUrl } : {}),
    });
  } catch (err) {
    if (err instanceof DataDirOwnedError) {
      throw new CliError(
        err.message,
        EXIT.failure,
        err.owner.role.includes("local service")
          ? "stop the local service first (condense service stop), or pass --data-dir <another dir>"
          : `stop it (kill ${err.owner.pid}) or pass --data-dir <another dir>`,
      );
    }
    throw err;
  }
  io.err(`condense (single process) listening on ${service.url} — data in ${dataDir}; docs ${service.url}/docs\n`);
  io.err(`API key (tenant ${LOCAL_TENANT}): ${service.apiKey}\n`);
  await waitForShutdown();
  await service.close();
  return EXIT.ok;
}

function parseApiEnv(env: Record<string, string | undefined>) {
  try {
    return loadApiEnv(env);
  } catch (err) {
    if (err instanceof ApiEnvError)
      throw new CliError(err.message, EXIT.usage, "fix the environment variable(s) named above");
    throw err;
  }
}
