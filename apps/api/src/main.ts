/**
 * Entry point: `tsx apps/api/src/main.ts`. Fleet (REDIS_URL set): the API alone, workers run apart.
 * Otherwise the single-process service (API and worker in one process, data in CONDENSE_DATA_DIR,
 * default ~/.pi/agent/condense: see @condense/config), since an API whose flushes nobody runs is of no use. Stops on SIGTERM/SIGINT.
 */
import { loadApiEnv, startServer } from "@condense/api";
import { processEnv } from "@condense/config";
import { dataDirAdminKey, startSingleProcessService } from "@condense/service";

const env = loadApiEnv();
let close: () => Promise<void>;
if (env.mode === "fleet") {
  close = (await startServer({ env })).close;
} else {
  const dataDir = env.dataDir;
  const service = await startSingleProcessService({
    dataDir,
    role: "condense api",
    listen: { port: env.port, host: env.host },
    env: { ...processEnv(), CONDENSE_LOG_LEVEL: env.logLevel },
    adminKey: env.adminKey || dataDirAdminKey(dataDir),
    ...(env.databaseUrl.startsWith("postgres") ? { databaseUrl: env.databaseUrl } : {}),
  });
  close = service.close;
}
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
