/**
 * The prebuilt-bundle rule the extension's entry and the CLI's bin share: fresh while the outputs exist
 * and no input changed or vanished since the build; with `sameCheckout` also only in the checkout that
 * built it and while its external files exist. (The CLI's use of it: apps/cli/test/prebuilt-bundle.test.ts.)
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshPrebuilt } from "../src/prebuilt-freshness.mjs";

let repo: string;
let pkg: string;
const builtAt = Date.now() - 60_000;
const past = new Date(builtAt - 60_000);
const EXTENSION = { outputs: ["dist/index.js", "dist/service.js"] };
const CLI = { outputs: ["dist/main.js"], sameCheckout: true };

function write(file: string, text = "x\n", mtime = past): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  utimesSync(file, mtime, mtime);
}

function manifest(over: Record<string, unknown> = {}): void {
  write(
    join(pkg, ".prebuilt/inputs.json"),
    JSON.stringify({
      builtAt,
      inputs: ["packages/p/src/index.ts", "packages/core/src/index.ts"],
      repo,
      externals: [join(repo, "node_modules/dep/index.js")],
      ...over,
    }),
  );
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "condense-prebuilt-"));
  pkg = join(repo, "packages/p");
  for (const f of ["packages/p/src/index.ts", "packages/core/src/index.ts", "node_modules/dep/index.js"])
    write(join(repo, f));
  for (const f of ["dist/index.js", "dist/service.js", "dist/main.js"]) write(join(pkg, ".prebuilt", f));
  manifest();
});

afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
});

describe("freshPrebuilt", () => {
  it("returns the first output while every output exists and no input is newer than the build", () => {
    expect(freshPrebuilt(pkg, EXTENSION)).toBe(join(pkg, ".prebuilt/dist/index.js"));
    expect(freshPrebuilt(pkg, CLI)).toBe(join(pkg, ".prebuilt/dist/main.js"));
  });

  it("is stale once an input is edited after the build or is gone", () => {
    const now = new Date();
    utimesSync(join(repo, "packages/core/src/index.ts"), now, now);
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
    write(join(repo, "packages/core/src/index.ts"));
    expect(freshPrebuilt(pkg, EXTENSION)).not.toBeNull();
    rmSync(join(repo, "packages/p/src/index.ts"));
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
  });

  it("is stale when any output is missing, not only the entry", () => {
    rmSync(join(pkg, ".prebuilt/dist/service.js"));
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
    expect(freshPrebuilt(pkg, CLI)).not.toBeNull();
  });

  it("refuses a manifest it cannot read or without inputs and a build time", () => {
    manifest({ inputs: [] });
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
    manifest({ builtAt: "yesterday" });
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
    write(join(pkg, ".prebuilt/inputs.json"), "{ not json");
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
    rmSync(join(pkg, ".prebuilt/inputs.json"));
    expect(freshPrebuilt(pkg, EXTENSION)).toBeNull();
  });

  it("with sameCheckout, also refuses another checkout's build and a missing external", () => {
    manifest({ repo: "/somewhere/else" });
    expect(freshPrebuilt(pkg, CLI)).toBeNull();
    expect(freshPrebuilt(pkg, EXTENSION)).not.toBeNull();
    manifest({ externals: undefined });
    expect(freshPrebuilt(pkg, CLI)).toBeNull();
    manifest();
    rmSync(join(repo, "node_modules/dep/index.js"));
    expect(freshPrebuilt(pkg, CLI)).toBeNull();
    expect(freshPrebuilt(pkg, EXTENSION)).not.toBeNull();
  });
});
