/**
 * The owner lock: a live owner (another process) is refused with who owns it; a dead owner's lock
 * (SIGKILL, so nothing was cleaned up) is taken over; a lock whose pid was reused by another process
 * is stale too; many processes racing for one directory leave exactly one owner.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, dataDirOwner, DataDirOwnedError, lockFileOf } from "../src/data-dir-lock.ts";
import { processStartTime } from "@condense/client";

const LOCK_MODULE = join(import.meta.dirname, "../src/data-dir-lock.ts");
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "condense-lock-"));
  dirs.push(d);
  return d;
};

/** A child process that takes the lock, prints "locked" (or "owned"), then waits. */
function holder(dataDir: string): Promise<{ child: ChildProcess; result: string }> {
  const code = `import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
try { acquireDataDirLock(${JSON.stringify(dataDir)}, { role: "test holder" }); console.log("locked"); }
catch (e) { console.log(e.name === "DataDirOwnedError" ? "owned" : "error " + e.message); process.exit(0); }
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve({ child, result: out.trim() });
    });
    child.on("error", reject);
  });
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) r();
    else c.once("exit", () => r());
  });

describe("data directory owner lock", () => {
  it("refuses a second owner while the first lives, naming it; a SIGKILLed owner's lock is taken over", async () => {
    const dir = tempDir();
    const first = await holder(dir);
    expect(first.result).toBe("locked");
    expect(dataDirOwner(dir)).toMatchObject({ pid: first.child.pid, role: "test holder" });
    let refused: unknown;
    try {
      acquireDataDirLock(dir, { role: "second" });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirOwnedError);
    expect((refused as Error).message).toContain(`test holder (pid ${first.child.pid}`);

    first.child.kill("SIGKILL");
    await exited(first.child);
    // The lock file is still there (nobody cleaned up), but its owner is dead.
    expect(JSON.parse(readFileSync(lockFileOf(dir), "utf8")).pid).toBe(first.child.pid);
    expect(dataDirOwner(dir)).toBeNull();
    const lock = acquireDataDirLock(dir, { role: "successor" });
    expect(dataDirOwner(dir)).toMatchObject({ pid: process.pid, role: "successor" });
    lock.release();
    expect(dataDirOwner(dir)).toBeNull();
  });

  it("treats a lock whose pid now belongs to another process (other start time) as stale", () => {
    const dir = tempDir();
    // Our own pid with a start time that is not ours: a previous owner whose pid was reused.
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: process.pid, startTime: "1", role: "old", since: "" }));
    expect(processStartTime(process.pid)).not.toBe("1");
    expect(dataDirOwner(dir)).toBeNull();
    const lock = acquireDataDirLock(dir, { role: "new" });
    expect(dataDirOwner(dir)?.role).toBe("new");
    lock.release();
  });

  it("leaves exactly one owner when six processes race for a directory with a stale lock", async () => {
    const dir = tempDir();
    writeFileSync(lockFileOf(dir), JSON.stringify({ pid: 2 ** 22 + 17, startTime: "5", role: "dead", since: "" }));
    const results = await Promise.all(Array.from({ length: 6 }, () => holder(dir)));
    const winners = results.filter((r) => r.result === "locked");
    expect(results.map((r) => r.result).sort()).toEqual(["locked", "owned", "owned", "owned", "owned", "owned"]);
    expect(dataDirOwner(dir)?.pid).toBe(winners[0]!.child.pid);
  });
});
