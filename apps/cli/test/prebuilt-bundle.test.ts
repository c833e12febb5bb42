/**
 * The CLI's prebuilt bundle (scripts/bundle.mjs, built at `pnpm install`): bin/fresh-bundle.mjs accepts
 * it only while every source it was built from is unchanged and every file it imports is still there,
 * bin/condense.mjs runs it then and the TypeScript source otherwise, and the real bundle reports what
 * the source reports.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "@condense/test-support/sessions";
// @ts-expect-error plain JavaScript module (it runs before TypeScript can load), no declarations
import { freshCliBundle } from "../bin/fresh-bundle.mjs";

const CLI_DIR = join(REPO_ROOT, "apps/cli");
const fresh = freshCliBundle as (cliDir: string) => string | null;

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: 16 << 20, timeout: 300_000 },
      (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

/** A checkout with a CLI whose bundle and source each say which one ran. */
let repo: string;
let cliDir: string;
const builtAt = Date.now() - 60_000;
const past = new Date(builtAt - 60_000);

function write(file: string, text: string, mtime = past): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  utimesSync(file, mtime, mtime);
}

function writeManifest(over: Record<string, unknown> = {}): void {
  const manifest = {
    builtAt,
    repo,
    inputs: ["apps/cli/src/main.ts", "packages/core/src/index.ts"],
    externals: [join(repo, "node_modules/dep/index.js")],
    ...over,
  };
  write(join(cliDir, ".prebuilt/inputs.json"), JSON.stringify(manifest));
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "condense-cli-bundle-"));
  cliDir = join(repo, "apps/cli");
  const runMain = (who: string) =>
    `export async function runMain(argv) { console.log(${JSON.stringify(who)} + " " + argv.join(" ")); }\n`;
  write(join(cliDir, "src/main.ts"), `${runMain("source").replace("(argv)", "(argv: string[])")}`);
  write(join(cliDir, "package.json"), '{ "type": "module" }\n');
  write(join(repo, "packages/core/src/index.ts"), "export const x = 1;\n");
  write(join(repo, "node_modules/dep/index.js"), "export {};\n");
  write(join(cliDir, ".prebuilt/dist/main.js"), runMain("bundle"));
  writeManifest();
  cpSync(join(CLI_DIR, "bin"), join(cliDir, "bin"), { recursive: true });
  // tsx, for the fallback, from the real package.
  symlinkSync(join(CLI_DIR, "node_modules"), join(cliDir, "node_modules"));
});

afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
});

describe("freshCliBundle", () => {
  it("accepts a bundle whose sources are unchanged", () => {
    expect(fresh(cliDir)).toBe(join(cliDir, ".prebuilt/dist/main.js"));
  });

  it("refuses it once a source is edited after the build", () => {
    const now = new Date();
    utimesSync(join(repo, "packages/core/src/index.ts"), now, now);
    expect(fresh(cliDir)).toBeNull();
  });

  it("refuses it when a source is gone, an imported package file is gone, or the bundle is gone", () => {
    rmSync(join(repo, "packages/core/src/index.ts"));
    expect(fresh(cliDir)).toBeNull();
    write(join(repo, "packages/core/src/index.ts"), "export const x = 1;\n");
    expect(fresh(cliDir)).not.toBeNull();
    rmSync(join(repo, "node_modules/dep/index.js"));
    expect(fresh(cliDir)).toBeNull();
    write(join(repo, "node_modules/dep/index.js"), "export {};\n");
    expect(fresh(cliDir)).not.toBeNull();
    rmSync(join(cliDir, ".prebuilt/dist/main.js"));
    expect(fresh(cliDir)).toBeNull();
  });

  it("refuses a bundle built in another checkout, or a manifest it cannot read", () => {
    writeManifest({ repo: "/somewhere/else" });
    expect(fresh(cliDir)).toBeNull();
    writeManifest({ inputs: [] });
    expect(fresh(cliDir)).toBeNull();
    writeManifest({ builtAt: "yesterday" });
    expect(fresh(cliDir)).toBeNull();
    write(join(cliDir, ".prebuilt/inputs.json"), "{ not json");
    expect(fresh(cliDir)).toBeNull();
    rmSync(join(cliDir, ".prebuilt"), { recursive: true });
    expect(fresh(cliDir)).toBeNull();
  });
});

describe("bin/condense.mjs", () => {
  it("runs the fresh bundle, and the TypeScript source once the bundle is stale", { timeout: 120_000 }, async () => {
    const bin = join(cliDir, "bin/condense.mjs");
    expect((await run([bin, "replay", "x.jsonl"])).out).toBe("bundle replay x.jsonl\n");
    const now = new Date();
    utimesSync(join(cliDir, "src/main.ts"), now, now);
    const stale = await run([bin, "replay", "x.jsonl"]);
    expect(stale.err).toBe("");
    expect(stale.out).toBe("source replay x.jsonl\n");
  });
});

// The installed bundle of this checkout, when `pnpm install` built it and nothing changed since.
describe.skipIf(fresh(CLI_DIR) === null)("the real prebuilt bundle", () => {
  it("reports the sample's replay exactly as the source does", { timeout: 600_000 }, async () => {
    const sample = "examples/sample-session.jsonl";
    const bundled = await run([join(CLI_DIR, "bin/condense.mjs"), "replay", sample]);
    const source = await run(["--import", "tsx", join(CLI_DIR, "src/main.ts"), "replay", sample]);
    expect(bundled.code).toBe(0);
    expect(source.code).toBe(0);
    // The first lines name the run's own wall time.
    const report = (out: string) => out.replace(/ · [\d.]+s\n/, " · <time>\n");
    expect(report(bundled.out)).toContain("tokens reclaimed");
    expect(report(bundled.out)).toBe(report(source.out));
  });
});
