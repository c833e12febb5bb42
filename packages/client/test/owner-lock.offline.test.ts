/**
 * The owner lock as the client reads it: a lock whose pid was reused by another process (here our own
 * pid with a start time that is not ours) names a dead owner, so the client starts a service at once
 * instead of waiting out its start timeout for an owner that will never answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localServiceHost, ownerIsAlive, processStartTime, readOwnerLock } from "../src/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "condense-owner-lock-"));
  dirs.push(d);
  return d;
};

describe("owner lock", () => {
  it("reads no lock as no owner, a torn lock as a dead owner", () => {
    const dir = tempDir();
    expect(readOwnerLock(join(dir, "owner.lock"))).toBeNull();
    writeFileSync(join(dir, "owner.lock"), '{"pid": 12');
    const torn = readOwnerLock(join(dir, "owner.lock"));
    expect(torn).not.toBeNull();
    expect(ownerIsAlive(torn!)).toBe(false);
  });

  it("is alive only for the pid that started at the recorded time", () => {
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    const base = { pid: process.pid, role: "t", since: "" };
    expect(ownerIsAlive({ ...base, startTime: start })).toBe(true);
    expect(ownerIsAlive({ ...base, startTime: "1" })).toBe(false);
    expect(ownerIsAlive({ ...base, pid: 2 ** 22 + 17, startTime: null })).toBe(false);
  });

  it("a client facing a reused pid's lock starts the service instead of waiting for it", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "owner.lock"),
      JSON.stringify({ pid: process.pid, startTime: "1", role: "old", since: "" }),
    );
    const host = localServiceHost({
      dataDir: dir,
      // A service that fails at once: the client must try it (and say so) rather than wait 60 s.
      command: { file: process.execPath, args: ["-e", "process.exit(3)"] },
      startTimeoutMs: 60_000,
    });
    const t0 = Date.now();
    await expect(host.ensure()).rejects.toThrow(/did not start \(exit 3\)/);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});
