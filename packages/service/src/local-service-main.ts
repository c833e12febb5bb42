/**
 * The local service's process: `node packages/service/bin/condense-service.mjs` (which loads this
 * through tsx). Configured by env only (@condense/config's service view): CONDENSE_DATA_DIR (default ~/.pi/agent/condense),
 * CONDENSE_SERVICE_IDLE_MS (default 10 minutes; 0 never stops), CONDENSE_SERVICE_NICE (default 10),
 * CONDENSE_SERVICE_PGLITE_TIER (default baseline), CONDENSE_LOG_LEVEL (default info),
 * plus the worker's summarizer variables. Exits 75 when another live process owns the directory.
 */
import { ConfigError, processEnv, serviceConfig } from "@condense/config";
import { setPgliteWasmTier } from "@condense/db";
import { DataDirOwnedError } from "./data-dir-lock.ts";
import { OWNED_EXIT_CODE, runLocalService } from "./local-service.ts";
import { lowerPriority } from "./lower-priority.ts";

const env = processEnv();
let config: ReturnType<typeof serviceConfig>;
try {
  config = serviceConfig(env);
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : String(err));
  process.exit(2);
}

// Before the start's work (PGlite, migrations, WebAssembly compilation): that is what the agent's
// first steps would otherwise share the CPU with.
const priority = lowerPriority(config.nice);
// Before the first PGlite compiles: the optimizing tier's recompile of Postgres is the larger part of
// the start's CPU, on threads of their own (pglite-wasm-tier.ts).
setPgliteWasmTier(config.pgliteTier);

try {
  const running = await runLocalService({
    dataDir: config.dataDir,
    idleMs: config.idleMs,
    env,
    logLevel: config.logLevel,
  });
  running.logger.info(
    { nice: priority.process, autogroupNice: priority.autogroup, pgliteTier: config.pgliteTier },
    "local service priority",
  );
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void running.stop(signal));
  // Crash-only: after an error nothing caught, exit; the owner lock is taken over and the next client
  // that needs the service starts a fresh one (commits are idempotent, queued requests are re-swept).
  const die = (kind: string) => (err: unknown) => {
    running.logger.fatal({ err }, kind);
    process.exit(1);
  };
  process.on("unhandledRejection", die("unhandled rejection"));
  process.on("uncaughtException", die("uncaught exception"));
  await running.stopped;
  process.exit(0);
} catch (err) {
  process.exit(err instanceof DataDirOwnedError ? OWNED_EXIT_CODE : 1);
}
