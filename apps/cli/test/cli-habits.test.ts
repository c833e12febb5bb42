/**
 * The CLI's habits: --version, "did you mean" for commands, subcommands and flags (in-process), and
 * the executable as people run it from the repository root (`node_modules/.bin/condense`,
 * `npx condense`, `pnpm -s condense`, `pnpm exec condense`) as child processes whose stdout must parse
 * as JSON with --json.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { runCaptured as run } from "./support/captured-cli.ts";
import { closestWord, editDistance } from "../src/did-you-mean.ts";

const exec = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "apps/cli/package.json"), "utf8")) as { version: string }).version;
const PNPM = ["-y", "pnpm@10.34.9"];

describe("edit distance and suggestions", () => {
  it("counts insertions, deletions, substitutions and adjacent swaps as one edit each", () => {
    expect(editDistance("serve", "serve")).toBe(0);
    expect(editDistance("sevre", "serve")).toBe(1);
    expect(editDistance("serv", "serve")).toBe(1);
    expect(editDistance("servee", "serve")).toBe(1);
    expect(editDistance("sarve", "serve")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests only close words", () => {
    const commands = ["replay", "serve", "worker", "migrate", "tenant", "key", "status", "retention"];
    expect(closestWord("sevre", commands)).toBe("serve");
    expect(closestWord("replya", commands)).toBe("replay");
    expect(closestWord("retension", commands)).toBe("retention");
    expect(closestWord("keys", commands)).toBe("key");
    expect(closestWord("frobnicate", commands)).toBeNull();
    expect(closestWord("retent", commands)).toBe("retention");
    expect(closestWord("--grace-seconds", ["--grace", "--json"])).toBe("--grace");
    expect(closestWord("x", commands)).toBeNull();
    expect(closestWord("--jsno", ["--json", "--help"])).toBe("--json");
  });
});

describe("condense in-process", () => {
  it("--version, -V and version print the package version; --json makes it JSON", async () => {
    for (const a of ["--version", "-V", "version"])
      expect(await run([a])).toMatchObject({ code: 0, out: `condense ${VERSION}\n` });
    expect(JSON.parse((await run(["--version", "--json"])).out)).toMatchObject({ name: "condense", version: VERSION });
  });

  it("an unknown command names the nearest one, and exits 2", async () => {
    const r = await run(["sevre"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("error: unknown command: sevre (did you mean serve?)");
    expect((await run(["frobnicate"])).err).not.toContain("did you mean");
    expect((await run(["--verison"])).err).toContain("unknown option: --verison (did you mean --version?)");
  });

  it("an unknown flag names the nearest flag of that command", async () => {
    const s = await run(["status", "--jsno"]);
    expect(s.code).toBe(2);
    expect(s.err).toContain("Unknown option '--jsno' (did you mean --json?)");
    expect(s.err).toContain("see: condense status --help");
    expect((await run(["key", "rotate", "a", "b", "--grace-seconds", "5"])).err).toContain("(did you mean --grace?)");
    expect((await run(["retention", "run", "--capture-days", "5"])).err).toContain("(did you mean --captures-days?)");
    expect((await run(["replay", "x.jsonl", "--htm", "r.html"])).err).toContain("(did you mean --html?)");
    expect((await run(["status", "--zzzzzz"])).err).not.toContain("did you mean");
  });

  it("an unknown subcommand names the nearest one", async () => {
    expect((await run(["key", "lsit", "acme"])).err).toContain("unknown subcommand: key lsit (did you mean key list?)");
    expect((await run(["key", "revokee", "acme", "x"])).err).toContain("(did you mean key revoke?)");
    expect((await run(["retention", "rn"])).err).toContain("(did you mean retention run?)");
  });
});

describe("the condense executable from the repository root (child processes)", () => {
  const dir = mkdtempSync(join(tmpdir(), "condense-bin-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, DATABASE_URL: "", CONDENSE_DATA_DIR: dir, NO_COLOR: "1" };
  const sh = (file: string, args: string[]) =>
    exec(file, args, { cwd: ROOT, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });

  it("node_modules/.bin/condense (the root links the CLI's bin): --version and a --json command", {
    timeout: 300_000,
  }, async () => {
    const v = await sh(join(ROOT, "node_modules/.bin/condense"), ["--version", "--json"]);
    expect(JSON.parse(v.stdout)).toMatchObject({ version: VERSION });
    const r = await sh(join(ROOT, "node_modules/.bin/condense"), ["retention", "run", "--json", "--data-dir", dir]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      policy: { capturesDays: 30 },
      removed: { captures: 0, storedBodies: 0, flushMetrics: 0, recoveries: 0 },
    });
  });

  it("runs from another directory too (tsx is resolved from the CLI's own package)", { timeout: 300_000 }, async () => {
    const v = await exec(join(ROOT, "node_modules/.bin/condense"), ["--version"], {
      cwd: tmpdir(),
      env,
      timeout: 240_000,
    });
    expect(v.stdout).toBe(`condense ${VERSION}\n`);
  });

  it("npx condense, pnpm -s condense and pnpm exec condense print clean JSON on stdout", {
    timeout: 600_000,
  }, async () => {
    const forms: [string, string[]][] = [
      ["npx", ["condense", "--version", "--json"]],
      ["npx", [...PNPM, "-s", "condense", "--version", "--json"]],
      ["npx", [...PNPM, "exec", "condense", "--version", "--json"]],
    ];
    for (const [file, args] of forms) {
      const r = await sh(file, args);
      expect(() => JSON.parse(r.stdout), `${file} ${args.join(" ")} printed: ${r.stdout}`).not.toThrow();
      expect(JSON.parse(r.stdout)).toMatchObject({ name: "condense", version: VERSION });
    }
    // The exit code travels through every form.
    await expect(sh("npx", ["condense", "sevre"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("did you mean serve?"),
    });
  });

  it("plain `pnpm condense` prints pnpm's banner on stdout first: the reason the docs say pnpm -s", {
    timeout: 300_000,
  }, async () => {
    const r = await sh("npx", [...PNPM, "condense", "--version", "--json"]);
    expect(r.stdout).toMatch(/^\s*> /);
    expect(() => JSON.parse(r.stdout)).toThrow();
  });
});
