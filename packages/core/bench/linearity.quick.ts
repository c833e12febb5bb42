/**
 * Quick linearity check for the cold render (a development aid next to bench:core, which it does not
 * replace): the largest pi session concatenated 1x/2x/4x/8x, a fresh structuredClone per render (clone
 * and a forced GC not timed), timed twice per size:
 *   cold   = render right after the clone (whatever of it is still in the CPU caches);
 *   evict  = the same, after streaming through a buffer larger than the L3 (untimed), so every size
 *            starts with the clone out of cache.
 * Prints ms per 1000 messages (median and min), measure on and off.
 * Run: `npx tsx packages/core/bench/linearity.quick.ts [rounds]` (re-executes itself with --expose-gc).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRenderMemo, decideRenderPolicy, pruneMessages } from "../src/render/prune-messages.ts";
import { readPiSession } from "../src/session-reader.ts";
import { normalizeSettings } from "../src/settings.ts";
import { SHARED_SESSIONS } from "@condense/test-support/sessions";
import { buildCondensedState } from "../test/support/condensed-state.ts";
import { concatenate, evictCaches, v8FlagsFromEnv } from "./bench-support.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc && !process.env.CONDENSE_BENCH_CHILD) {
  const r = spawnSync(
    process.execPath,
    ["--expose-gc", ...v8FlagsFromEnv(), ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: "inherit",
      env: { ...process.env, CONDENSE_BENCH_CHILD: "1" },
    },
  );
  process.exit(r.status ?? 1);
}
const rounds = Number(process.argv[2] ?? 40);
const settings = normalizeSettings({});
const { messages } = readPiSession(
  readFileSync(join(SHARED_SESSIONS, "pi", "pi-mono_fixture_before-compaction.jsonl"), "utf8"),
  { compaction: "ignore" },
);

function stats(xs: number[]): { med: number; min: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { med: s[Math.floor(s.length / 2)]!, min: s[0]! };
}

console.log("size | msgs | cold med/min per 1k | evict med/min per 1k | cold off med/min | evict off med/min");
for (const k of [1, 2, 4, 8]) {
  const fx = buildCondensedState(concatenate(messages, k), { keepLastUserTurns: 3, settings });
  const base = fx.messages;
  // as the client renders: the state's memo and the policy decided when it was applied
  const memo = createRenderMemo(fx.state);
  const policy = decideRenderPolicy(base, settings);
  const per = (t: number) => (t / (base.length / 1000)).toFixed(2);
  const cells: string[] = [];
  for (const measure of [true, false]) {
    for (const evict of [false, true]) {
      const xs: number[] = [];
      for (let i = 0; i < rounds + 3; i++) {
        const fresh = structuredClone(base);
        gc!();
        if (evict) evictCaches();
        const t = process.hrtime.bigint();
        pruneMessages(fresh, fx.state, { settings, measure, memo, policy });
        const d = Number(process.hrtime.bigint() - t) / 1e6;
        if (i >= 3) xs.push(d);
      }
      const s = stats(xs);
      cells.push(`${per(s.med)} / ${per(s.min)}`);
    }
  }
  console.log(`x${k} | ${base.length} | ${cells.join(" | ")}`);
}
