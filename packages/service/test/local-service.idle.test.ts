/**
 * The local service as a client starts it: detached, reachable on the data directory's socket, logging
 * to its file, and gone on its own once idle for CONDENSE_SERVICE_IDLE_MS (lock and socket released).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
      env: { ...process.env, CONDENSE_SERVICE_IDLE_MS: "1500" },
      startTimeoutMs: 150_000,
    });
    await host.ensure();
    const owner = dataDirOwner(dataDir);
    expect(owner?.role).toBe("the Condense local service");
    expect(owner?.pid).not.toBe(process.pid);
    const res = await host.fetch("http://condense.local/v1/fleet/status");
    expect(res.status).toBe(200);
    const deadline = Date.now() + 60_000;
    while (dataDirOwner(dataDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(dataDirOwner(dataDir)).toBeNull();
    expect(existsSync(host.paths.socket)).toBe(false);
    const log = readFileSync(host.paths.logFile, "utf8");
    expect(log).toContain('"msg":"local service listening"');
    expect(log).toContain("idle for 1500 ms");
    // The default tier, as applied (the priority line reports what the process set).
    expect(log).toMatch(/"pgliteTier":"baseline"[^\n]*"msg":"local service priority"/);
  });
});
