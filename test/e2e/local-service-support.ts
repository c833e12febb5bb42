/**
 * Helpers for suites that run the per-user local service for real: where its executable is, who owns
 * a data directory, stopping it (SIGTERM, waiting until the lock is free), and reading its log.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { dataDirOwner } from "@condense/service";

export const SERVICE_DAEMON = createRequire(import.meta.url).resolve("@condense/service/daemon");

export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function ownerPid(dataDir: string): number | null {
  return dataDirOwner(dataDir)?.pid ?? null;
}

/** SIGTERM the owner and wait until it has released the directory (it finishes active flushes). */
export async function stopLocalService(dataDir: string, timeoutMs = 60_000): Promise<void> {
  const pid = ownerPid(dataDir);
  if (pid === null) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    /* gone already */
  }
  await waitFor("the local service to stop", () => ownerPid(dataDir) === null, timeoutMs);
}

export interface ServiceLogLine {
  msg: string;
  pid: number;
  [k: string]: unknown;
}

export function serviceLog(dataDir: string): ServiceLogLine[] {
  let text = "";
  try {
    text = readFileSync(join(dataDir, "service.log"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as ServiceLogLine];
      } catch {
        return [];
      }
    });
}

/** The pids that started listening, in order (one per service start that won the directory). */
export function serviceStarts(dataDir: string): number[] {
  return serviceLog(dataDir)
    .filter((l) => l.msg === "local service listening")
    .map((l) => l.pid);
}

export { waitLocalIdle } from "./local-service-idle.ts";
