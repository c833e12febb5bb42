/**
 * Starts the per-user local service for a pi home before a scripted pi run, the way the extension
 * does (the service daemon, detached, over the same data directory, with the env pi would pass it),
 * and waits until it answers. A cold start (tsx loading the service, PGlite migrating) can take longer
 * than a short scripted run on a loaded machine; a run that must see summaries then races the start,
 * and a stop sent mid-start leaves a half-migrated database. pi's own sessions then find the running
 * service, as a user's second session does. Suites still stop it (stopLocalService) when they end.
 */
import { localServiceHost } from "@condense/client";
import { SERVICE_DAEMON } from "./local-service-support.ts";
import { piEnv, type PiHome } from "./pi-runner.ts";
import { localDataDir } from "./scenario-run.ts";

export async function warmLocalService(home: PiHome, env: Record<string, string> = {}): Promise<void> {
  const host = localServiceHost({
    dataDir: localDataDir(home),
    command: { file: process.execPath, args: [SERVICE_DAEMON] },
    // What runPi gives pi, which its extension passes on to the service it starts.
    env: piEnv(home, env),
    startTimeoutMs: 180_000,
  });
  try {
    await host.ensure();
  } finally {
    await host.close();
  }
}
