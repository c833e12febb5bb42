/**
 * The tier is V8's: `baseline` keeps WebAssembly on its first compiler (--liftoff-only) for what is
 * compiled from then on, `optimizing` restores V8's default. What it saves is measured in bench:pi
 * (the service's CPU per run) and the replay's time, not here.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";

const setFlags = vi.hoisted(() => vi.fn());
vi.mock("node:v8", async (importOriginal) => ({ ...(await importOriginal()), setFlagsFromString: setFlags }));

const { setPgliteWasmTier } = await import("../src/pglite-wasm-tier.ts");

describe("setPgliteWasmTier", () => {
  it("maps each tier to V8's flag", () => {
    setPgliteWasmTier("baseline");
    setPgliteWasmTier("optimizing");
    expect(setFlags.mock.calls).toEqual([["--liftoff-only"], ["--no-liftoff-only"]]);
  });

  it("V8 on this Node takes both flags at run time (an unknown flag would be ignored without a word)", () => {
    // V8 prints an error for a flag it does not know; a release that dropped --liftoff-only would
    // leave PGlite on the optimizing tier silently.
    const r = spawnSync(
      process.execPath,
      [
        "-e",
        'const v8 = require("node:v8"); v8.setFlagsFromString("--liftoff-only"); v8.setFlagsFromString("--no-liftoff-only"); v8.setFlagsFromString("--condense-no-such-flag")',
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/condense-no-such-flag/);
    expect(out).not.toMatch(/liftoff-only/);
  });
});
