/**
 * The local service as a client starts it: detached, reachable on the data directory's socket, logging
 * to its file, every thread of it at the niceness CONDENSE_SERVICE_NICE asks for, and gone on its own once
 * idle for CONDENSE_SERVICE_IDLE_MS (lock and socket released).
 */

/** Niceness of every thread of a process (/proc/<pid>/task/<tid>/stat, field 19). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localServiceHost } from "@condense/client";
import { dataDirOwner } from "../src/data-dir-lock.ts";

const DAEMON = join(import.meta.dirname, "../bin/condense-service.mjs");

describe("the local service started by a client", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "condense-idle-"));
  afterAll(() => {
    const o = dataDirOwner(dataDir);
    if (o) process.kill(o.pid, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers on its socket, logs to its file and stops by itself when idle", { timeout: 180_000 }, async () => {
    const host = localServiceHost({
      dataDir,
      command: { file: process.execPath, args: [DAEMON] },
      env: { ...process.env, CONDENSE_SERVICE_IDLE_MS: "1500", CONDENSE_SERVICE_NICE: "7" },
      startTimeoutMs: 150_000,
    });
    await host.ensure();
    const owner = dataDirOwner(dataDir);
    expect(owner?.role).toBe("the Condense local service");
    expect(owner?.pid).not.toBe(process.pid);
    const res = await host.fetch("http://condense.local/v1/fleet/status");
    expect(res.status).toBe(200);
    if (process.platform === "linux") {
      const nice = threadNiceness(owner!.pid);
      expect(nice.length).toBeGreaterThan(1);
      expect(new Set(nice)).toEqual(new Set([7]));
    }
    const deadline = Date.now() + 60_000;
    while (dataDirOwner(dataDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(dataDirOwner(dataDir)).toBeNull();
    expect(existsSync(host.paths.socket)).toBe(false);
    const log = readFileSync(host.paths.logFile, "utf8");
    expect(log).toContain('"msg":"local service listening"');
    expect(log).toContain('"msg":"local service priority"');
    expect(log).toContain("idle for 1500 ms");
  });
});
