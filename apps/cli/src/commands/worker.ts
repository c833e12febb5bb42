/** `condense worker`: one fleet worker (BullMQ consumer) with an optional Prometheus endpoint. */
import { collectDefaultMetrics, Registry } from "prom-client";
import { createRuntime, loadWorkerConfig, newStartupState, WorkerConfigError } from "@condense/worker";
import { cliConfig } from "@condense/config";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { metricsHost, startMetricsServer } from "../metrics-server.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";
import { waitForShutdown } from "../shutdown.ts";

export const WORKER_HELP = `condense worker [--metrics-port <port>] [--concurrency <n>]

Runs a flush worker: takes flush and chain jobs from the shared queue, summarizes, and commits to
Postgres. Needs DATABASE_URL (postgres://) and REDIS_URL. Run as many as you like; jobs of one
session never run concurrently. Stops on SIGTERM/SIGINT after letting active flushes finish
(CONDENSE_WORKER_SHUTDOWN_GRACE_MS).

Options:
  --metrics-port <port>   serve Prometheus metrics on this port (env CONDENSE_WORKER_METRICS_PORT),
                          bound to CONDENSE_WORKER_METRICS_HOST (default 127.0.0.1)
  --concurrency <n>       jobs in flight (env CONDENSE_WORKER_CONCURRENCY, default 8)

Summarizer: CONDENSE_SUMMARIZER_MODEL (provider/id), CONDENSE_SUMMARIZER_FALLBACK_MODEL,
CONDENSE_SUMMARIZER_CONFIG (JSON); provider keys from the usual env vars (ANTHROPIC_API_KEY, ...).
Without a model the deterministic summarizer runs. One process with API + worker: condense serve.
`;

export async function workerCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ "metrics-port"?: string; concurrency?: string }>("worker", argv, {
    "metrics-port": { type: "string" },
    concurrency: { type: "string" },
  });
  if (help) {
    io.out(WORKER_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw new CliError(`unexpected argument: ${positionals[0]}`, EXIT.usage, "see: condense worker --help");
  const cli = cliConfig(io.env);
  if (!cli.databaseUrl?.startsWith("postgres") || !cli.redisUrl) {
    throw new CliError(
      "condense worker needs DATABASE_URL (postgres://...) and REDIS_URL",
      EXIT.usage,
      "fleet workers share one Postgres and one Redis queue; on one machine run `condense serve` (API and worker in one process)",
    );
  }
  const env = {
    ...io.env,
    ...(values.concurrency
      ? { CONDENSE_WORKER_CONCURRENCY: String(intFlag("concurrency", values.concurrency, 8, 1)) }
      : {}),
  };
  let config;
  try {
    config = loadWorkerConfig(env);
  } catch (err) {
    if (err instanceof WorkerConfigError) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "condense_worker_" });
  // The metrics port (with /readyz) is up before the dependencies: a worker waiting for Postgres or
  // Redis says so instead of being absent.
  const startup = newStartupState();
  const portRaw = values["metrics-port"] ?? cli.metricsPort?.toString();
  const metrics =
    portRaw !== undefined && portRaw !== ""
      ? await startMetricsServer(registry, intFlag("metrics-port", portRaw, 0, 0), metricsHost(io.env), () => ({
          ready: startup.ready,
          body: {
            status: startup.ready ? "ready" : "starting",
            waitingFor: startup.waitingFor,
            lastError: startup.lastError,
            attempts: startup.attempts,
          },
        }))
      : null;
  const runtime = await createRuntime(config, { registry, startup });
  await runtime.start();
  io.err(
    `condense worker ${config.workerId} consuming (${config.mode}, concurrency ${config.concurrency})${metrics ? `; metrics on :${metrics.port}/metrics` : ""}\n`,
  );
  await waitForShutdown();
  await runtime.close();
  await metrics?.close();
  return EXIT.ok;
}
