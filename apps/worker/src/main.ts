/**
 * `tsx apps/worker/src/main.ts`: a worker process. SIGTERM/SIGINT stop it taking jobs, let active
 * flushes finish for CONDENSE_WORKER_SHUTDOWN_GRACE_MS, then release the rest (a released job's lock lapses
 * and another worker re-runs it; commits are idempotent) and exit.
 *
 * Test harness hooks (declared in @condense/config, used here only): CONDENSE_CRASH_AT (see packages/worker/src/crash-hooks.ts) and CONDENSE_TRACE_FILE
 * (one JSON line per flush run with its start and end, for the serialization checks).
 */
import { appendFileSync } from "node:fs";
import { createRuntime, crashHooksFromSpec, loadWorkerConfig } from "@condense/worker";

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  if (config.mode === "embedded") {
    // A worker alone on a PGlite directory has no API feeding it, and would own the directory.
    console.error(
      "condense worker: no DATABASE_URL/REDIS_URL, so there is nothing to consume. Run API and worker in one process with `condense serve` (or apps/api/src/main.ts), or set DATABASE_URL=postgres://... and REDIS_URL for a fleet worker.",
    );
    process.exit(2);
  }
  const traceFile = config.traceFile;
  const hooks = crashHooksFromSpec(config.crashAt);
  const runtime = await createRuntime(config, {
    ...(hooks ? { hooks } : {}),
    ...(traceFile ? { onFlushTrace: (t) => appendFileSync(traceFile, `${JSON.stringify(t)}\n`) } : {}),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, "shutting down");
    runtime.close().then(
      () => process.exit(0),
      (err) => {
        runtime.logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Crash-only: after an error nothing caught, this process's connections and state are suspect, and
  // running on hid exactly such a fault once (a dead postgres.js connection). Exit; the supervisor
  // restarts the worker, in-flight jobs stall and are re-delivered, and commits are idempotent.
  const die = (kind: string) => (err: unknown) => {
    runtime.logger.fatal({ err }, kind);
    process.exit(1);
  };
  process.on("unhandledRejection", die("unhandled rejection"));
  process.on("uncaughtException", die("uncaught exception"));
  await runtime.start();
  // Tells a parent process (tests, bench) that this worker is consuming.
  process.send?.({ type: "ready", workerId: config.workerId });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
