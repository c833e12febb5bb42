/** The local service lowers its CPU priority (process and autogroup) and never raises it. */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAutogroupNice } from "../src/lower-priority.ts";

const MODULE = new URL("../src/lower-priority.ts", import.meta.url).pathname;

/** Runs lowerPriority in a child (priority only goes down: the test process must stay as it is). */
function inChild(nice: number, autogroupFile?: string): { process: number; autogroup: number | null } {
  const args = autogroupFile ? `${nice}, ${JSON.stringify(autogroupFile)}` : String(nice);
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import(${JSON.stringify(MODULE)}).then((m) => console.log(JSON.stringify(m.lowerPriority(${args}))))`,
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!);
}

describe("lowerPriority", () => {
  it("sets the process's nice value, and writes the autogroup's", () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-prio-"));
    const file = join(dir, "autogroup");
    writeFileSync(file, "/autogroup-7 nice 0\n");
    const r = inChild(10, file);
    expect(r.process).toBe(10);
    // A plain file stands in for /proc/self/autogroup: what was written is what the kernel would read.
    expect(readFileSync(file, "utf8")).toBe("10");
  });

  it("never raises a priority already lower, and 0 changes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-prio-"));
    const file = join(dir, "autogroup");
    writeFileSync(file, "/autogroup-7 nice 15\n");
    expect(inChild(5, file)).toEqual({ process: 5, autogroup: 15 });
    writeFileSync(file, "/autogroup-7 nice 0\n");
    expect(inChild(0, file)).toEqual({ process: 0, autogroup: 0 });
  });

  it("without autogroups only the process is lowered", () => {
    expect(inChild(7, "/nonexistent/autogroup")).toEqual({ process: 7, autogroup: null });
  });

  it.skipIf(readAutogroupNice() === null)("on this Linux host the real autogroup file is lowered", async () => {
    // The child must not share this process's autogroup: detached, it runs in a session of its own
    // (a new autogroup), as the local service does.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import(${JSON.stringify(MODULE)}).then((m) => { m.lowerPriority(12); console.log(require("node:fs").readFileSync("/proc/self/autogroup", "utf8")); })`,
      ],
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toMatch(/nice 12/);
    expect(readAutogroupNice()).not.toBe(12);
  });
});
