/**
 * bench:core — render cost of `pruneMessages` on the real pi sessions, and on the largest one
 * (pi-mono_fixture_before-compaction, 1121 messages with its summaries) concatenated 2x/4x/8x, with a full condensed
 * state (everything older than the last 3 user turns summarized, older closed chains compressed).
 *
 * Per row: median and p95 of a render with the state, measured two ways:
 *   warm = the same message objects every render (per-object caches hit);
 *   cold = a fresh structuredClone before every render (what pi's `context` hook hands over; the
 *          clone itself is not timed);
 * plus a cache-controlled cold variant (caches flushed between the clone and the render, see METHOD), the no-op
 * render (empty state) and the reclaim. Compared with pi-condense 2.9.1 measured on
 * this machine, and, in the same run, with an in-process baseline doing what dominated that anchor
 * (`JSON.stringify(input).length + JSON.stringify(output).length` on a fresh clone), so the ratio holds
 * on a loaded machine. Run: `pnpm bench:core` (re-executes itself with --expose-gc for the allocation probe).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import {
  createRenderMemo,
  decideRenderPolicy,
  pruneMessages,
  type RenderOptions,
} from "../src/render/prune-messages.ts";
import { readPiSession } from "../src/session-reader.ts";
import { normalizeSettings } from "../src/settings.ts";
import { createState, type CondenseState } from "../src/state.ts";
import { reclaimPercent } from "../src/metrics.ts";
import type { AgentMessage } from "../src/messages.ts";
import { writeBenchSection, writesBenchmarksDoc } from "@condense/test-support/benchmarks-doc";
import { realSessionFiles, REPO_ROOT } from "@condense/test-support/sessions";
import { buildCondensedState } from "../test/support/condensed-state.ts";
import { concatenate, evictCaches, v8FlagsFromEnv, EVICT_BYTES, L3_BYTES, L3_SOURCE } from "./bench-support.ts";

const self = fileURLToPath(import.meta.url);
const gc = (globalThis as { gc?: () => void }).gc;
const V8_FLAGS = v8FlagsFromEnv();
if (!gc && !process.env.CONDENSE_BENCH_CHILD) {
  const r = spawnSync(
    process.execPath,
    ["--expose-gc", ...V8_FLAGS, ...process.execArgv, self, ...process.argv.slice(2)],
    {
      stdio: "inherit",
      env: { ...process.env, CONDENSE_BENCH_CHILD: "1" },
    },
  );
  process.exit(r.status ?? 1);
}

const ANCHOR = {
  label: "pi-condense 2.9.1 (this machine)",
  x1: 11.9,
  x2: 27,
  x4: 64,
  x8: [148, 211] as const,
  noop: 0.25,
};
const LARGEST = "pi-mono_fixture_before-compaction.jsonl";
const settings = normalizeSettings({});
const writeDocs = writesBenchmarksDoc();

const METHOD = [
  "Command: `pnpm bench:core` (`tsx packages/core/bench/render.bench.ts`; `--no-write` skips this file).",
  "",
  "Method:",
  '- Input: every pi session in `../shared/data/sessions/pi`, read with `readPiSession(text, {compaction: "ignore"})` (the full',
  "  history of the current path; compactions dropped so the sizes match what pi-condense was measured on), and the largest one",
  "  (pi-mono_fixture_before-compaction, 990 messages read, 1121 with the summaries the state inserts) concatenated 2x/4x/8x: each copy is a structuredClone with timestamps",
  "  shifted past the previous copy and tool-call ids suffixed `~k`, so every occurrence stays unique.",
  "- State: `buildCondensedState(messages, {keepLastUserTurns: 3})` (packages/core/test/support/condensed-state.ts): every batch",
  "  before the last 3 user turns is flushed (trivial ones skipped, the rest summarized with tN refs; the summary custom messages",
  "  are inserted where a reply-triggered flush would append them, so they count in the size), and all closed chains except the",
  "  newest 3 are compressed (covered: concatenated summaries; uncovered: backfilled records + deterministic body).",
  "- Renders are called as the client calls them: with the render memo of the state and the render policy decided when it",
  "  was applied (`createRenderMemo`, `decideRenderPolicy`; the client's state mirror keeps both per applied state).",
  "- Timing: `process.hrtime.bigint()` around one `pruneMessages` call; 5 warmup renders, then samples until ~1.2 s (min 15,",
  "  max 400; the *+evict* variants stop at 60, since each eviction takes ~0.1-0.3 s); median and p95. *warm* renders the same message objects every time. *cold* renders a fresh `structuredClone` of",
  "  the array each time (clone and a forced GC not timed), which is what pi's `context` hook delivers, so per-object caches",
  "  never hit.",
  "- *cold, measure off*: the same with `{measure: false}` (no `beforeChars`/`afterChars`), which is how the client renders",
  "  between two state applications (it measures reclaim once per applied state).",
  "- *cold+evict* (cache-controlled): as *cold*, but after the clone and the GC a read-modify-write of one word per 64-byte",
  `  line over a ${EVICT_BYTES / 2 ** 20} MiB buffer (3x the ${L3_BYTES / 2 ** 20} MiB L3, ${L3_SOURCE}; untimed) flushes the clone out of every cache level and the TLB, so each size`,
  "  starts from the same cache state. Plain *cold* starts with as much of the fresh clone in cache as fits, which is all of it",
  "  at x1 and a small part at x8; its per-message figures therefore mix the render's cost with the cache's capacity.",
  "  *baseline+evict* is the baseline under the same condition. `BENCH_CORE_NO_EVICT=1` skips the three *+evict* variants",
  "  (printed as NaN), which take most of a run's time, for repeated A/B runs.",
  "- No-op: `pruneMessages(messages, emptyState)`; allocation = heapUsed growth over 200 no-op renders after a forced GC",
  "  (`--expose-gc`), per render (`n/a` when a scavenge ran during the probe).",
  "- Reclaim: `1 - afterChars/beforeChars` of the first full-state render, in chars/4 tokens.",
  "- Baseline (same run, same fresh clones): `JSON.stringify(clone).length + JSON.stringify(output).length`, the two",
  "  serializations that were ~98% of pi-condense 2.9.1's render; *cold x baseline* = baseline / cold, for the median and",
  "  for `min`. The anchor speedup compares with figures measured earlier on this machine, the baseline ratio within this run.",
  `- Anchor: ${ANCHOR.label}: ${ANCHOR.x1} ms @1x, ${ANCHOR.x2} @2x, ${ANCHOR.x4} @4x, ${ANCHOR.x8[0]}-${ANCHOR.x8[1]} @8x; no-op ${ANCHOR.noop} ms.`,
].join("\n");

function now(): bigint {
  return process.hrtime.bigint();
}
const ms = (ns: bigint) => Number(ns) / 1e6;

function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

interface Timing {
  median: number;
  p95: number;
  min: number;
  n: number;
}

/** Warmup, then enough iterations for ~budgetMs of samples (min 15, max 400). */
/** Evicting the caches costs ~0.1-0.3 s per sample on a 100 MiB L3, so those variants stop at this many samples. */
const EVICT_SAMPLES = 60;
/** `BENCH_CORE_NO_EVICT=1` skips the cache-controlled (*+evict*) variants, which take most of a run's time. */
const NO_EVICT = process.env.BENCH_CORE_NO_EVICT === "1";
const SKIPPED: Timing = { median: Number.NaN, p95: Number.NaN, min: Number.NaN, n: 0 };

function measure(run: (i: number) => void, prepare?: (i: number) => void, budgetMs = 1200, maxSamples = 400): Timing {
  for (let i = 0; i < 5; i++) {
    prepare?.(i);
    run(i);
  }
  const samples: number[] = [];
  let spent = 0;
  for (let i = 0; (spent < budgetMs || samples.length < 15) && samples.length < maxSamples; i++) {
    prepare?.(i);
    const t = now();
    run(i);
    const d = ms(now() - t);
    samples.push(d);
    spent += d;
  }
  samples.sort((a, b) => a - b);
  return { median: quantile(samples, 0.5), p95: quantile(samples, 0.95), min: samples[0]!, n: samples.length };
}

/**
 * Render options as the client passes them: the memo of the applied state and the policy decided when
 * it was applied (the client's state mirror keeps both per applied state).
 */
function asClient(messages: readonly AgentMessage[], state: CondenseState, s = settings): RenderOptions {
  return { settings: s, memo: createRenderMemo(state), policy: decideRenderPolicy(messages, s) };
}

function noopAllocation(messages: readonly AgentMessage[], state: CondenseState): number | null {
  if (!gc) return null;
  const rounds = 200;
  const opts = asClient(messages, state);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < rounds; i++) pruneMessages(messages, state, opts);
  const after = process.memoryUsage().heapUsed;
  const per = (after - before) / rounds;
  return per >= 0 ? per : null;
}

interface Row {
  name: string;
  messages: number;
  warm: Timing;
  cold: Timing;
  coldUnmeasured: Timing;
  coldEvict: Timing;
  coldEvictUnmeasured: Timing;
  baseline: Timing;
  baselineEvict: Timing;
  noop: Timing;
  noopPruned: boolean;
  noopBytes: number | null;
  reclaim: number;
  anchor?: number | readonly [number, number];
}

function benchOne(name: string, messages: AgentMessage[], anchor?: Row["anchor"]): Row {
  const fx = buildCondensedState(messages, { keepLastUserTurns: 3, settings });
  const base = fx.messages;
  const opts = asClient(base, fx.state);
  const off: RenderOptions = { ...opts, measure: false };
  const first = pruneMessages(base, fx.state, opts);
  gc?.();
  const warm = measure(() => {
    pruneMessages(base, fx.state, opts);
  });
  let fresh: AgentMessage[] = base;
  // The clone and its garbage are collected before the timed render, so GC of the bench's own
  // allocations does not land inside a sample.
  const cold = measure(
    () => {
      pruneMessages(fresh, fx.state, opts);
    },
    () => {
      fresh = structuredClone(base);
      gc?.();
    },
    1200,
  );
  // The client measures reclaim once per applied state and renders with `measure: false` otherwise.
  const coldUnmeasured = measure(
    () => {
      pruneMessages(fresh, fx.state, off);
    },
    () => {
      fresh = structuredClone(base);
      gc?.();
    },
    1200,
  );
  // Cache-controlled: the same, with the caches flushed (untimed) between the clone and the render,
  // so every size starts from the same cache state instead of "whatever of the clone still fits".
  const coldEvict = NO_EVICT
    ? SKIPPED
    : measure(
        () => {
          pruneMessages(fresh, fx.state, opts);
        },
        () => {
          fresh = structuredClone(base);
          gc?.();
          evictCaches();
        },
        1200,
        EVICT_SAMPLES,
      );
  const coldEvictUnmeasured = NO_EVICT
    ? SKIPPED
    : measure(
        () => {
          pruneMessages(fresh, fx.state, off);
        },
        () => {
          fresh = structuredClone(base);
          gc?.();
          evictCaches();
        },
        1200,
        EVICT_SAMPLES,
      );
  // What dominated the anchor, on the same inputs: serialize the fresh input and the output once each.
  let output: readonly AgentMessage[] = base;
  let sink = 0;
  const prepareBaseline = (evict: boolean) => () => {
    fresh = structuredClone(base);
    output = pruneMessages(fresh, fx.state, off).messages;
    gc?.();
    if (evict) evictCaches();
  };
  const baseline = measure(
    () => {
      sink += JSON.stringify(fresh).length + JSON.stringify(output).length;
    },
    prepareBaseline(false),
    1200,
  );
  const baselineEvict = NO_EVICT
    ? SKIPPED
    : measure(
        () => {
          sink += JSON.stringify(fresh).length + JSON.stringify(output).length;
        },
        prepareBaseline(true),
        1200,
        EVICT_SAMPLES,
      );
  if (sink < 0) console.log(sink);
  const empty = createState();
  const emptyOpts = asClient(base, empty);
  const noopProbe = pruneMessages(base, empty, emptyOpts);
  const noop = measure(
    () => {
      pruneMessages(base, empty, emptyOpts);
    },
    undefined,
    400,
  );
  return {
    name,
    messages: base.length,
    warm,
    cold,
    coldUnmeasured,
    coldEvict,
    coldEvictUnmeasured,
    baseline,
    baselineEvict,
    noop,
    noopPruned: noopProbe.pruned,
    noopBytes: noopAllocation(base, empty),
    reclaim: reclaimPercent(first.beforeChars, first.afterChars),
    anchor,
  };
}

const f2 = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
function speedup(anchor: Row["anchor"], t: number): string {
  if (anchor === undefined) return "";
  if (typeof anchor === "number") return `${(anchor / t).toFixed(1)}x`;
  return `${(anchor[0] / t).toFixed(1)}-${(anchor[1] / t).toFixed(1)}x`;
}
function anchorText(anchor: Row["anchor"]): string {
  if (anchor === undefined) return "";
  return typeof anchor === "number" ? `${anchor}` : `${anchor[0]}-${anchor[1]}`;
}

const files = realSessionFiles("pi");
if (files.length === 0) {
  console.warn("[bench:core] no real sessions found; nothing to measure");
  process.exit(0);
}
const rows: Row[] = [];
let largest: AgentMessage[] | null = null;
for (const file of files) {
  const { messages } = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" });
  const name = basename(file, ".jsonl");
  if (basename(file) === LARGEST) largest = messages;
  rows.push(benchOne(name, messages, basename(file) === LARGEST ? ANCHOR.x1 : undefined));
  process.stderr.write(`.`);
}
if (largest) {
  for (const [k, anchor] of [
    [2, ANCHOR.x2],
    [4, ANCHOR.x4],
    [8, ANCHOR.x8],
  ] as const) {
    rows.push(benchOne(`${basename(LARGEST, ".jsonl")} x${k}`, concatenate(largest, k), anchor));
    process.stderr.write(`.`);
  }
}
process.stderr.write("\n");

const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
const header =
  "| session | messages | warm median ms | warm min | cold median ms | cold p95 | cold min | cold median, measure off | baseline median ms | baseline min | cold x baseline (median / min) | empty-state median ms | empty-state alloc/render | reclaim | anchor ms | speedup vs anchor, warm | speedup vs anchor, cold | cold+evict median ms / min | cold+evict x baseline+evict (median) |";
const sep = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
const table = [
  header,
  sep,
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.messages} | ${f2(r.warm.median)} | ${f2(r.warm.min)} | ${f2(r.cold.median)} | ${f2(r.cold.p95)} | ${f2(r.cold.min)} | ${f2(r.coldUnmeasured.median)} | ${f2(r.baseline.median)} | ${f2(r.baseline.min)} | ${ratio(r.baseline.median, r.cold.median)} / ${ratio(r.baseline.min, r.cold.min)} | ${f2(r.noop.median)}${r.noopPruned ? "*" : ""} | ${r.noopBytes === null ? "n/a" : `${Math.round(r.noopBytes)} B`} | ${r.reclaim}% | ${anchorText(r.anchor)} | ${speedup(r.anchor, r.warm.median)} | ${speedup(r.anchor, r.cold.median)} | ${f2(r.coldEvict.median)} / ${f2(r.coldEvict.min)} | ${ratio(r.baselineEvict.median, r.coldEvict.median)} |`,
  ),
];
const scaled = rows.filter((r) => r.anchor !== undefined);
const per1k = (t: number, r: Row) => (t / (r.messages / 1000)).toFixed(2);
const pair = (t: Timing, r: Row) => `${per1k(t.median, r)} / ${per1k(t.min, r)}`;
/** Per-1k figure of x8 over x1 (1.00 = linear), from the medians and from the mins. */
const growth = (pick: (r: Row) => Timing) => {
  const a = scaled[0],
    b = scaled[scaled.length - 1];
  if (!a || !b || a === b) return "";
  const g = (f: (t: Timing) => number) => (f(pick(b)) / b.messages / (f(pick(a)) / a.messages)).toFixed(2);
  return `${g((t) => t.median)} / ${g((t) => t.min)}`;
};
const perK = [
  "| messages | cold median per 1k msgs | cold min per 1k | warm median per 1k | baseline median per 1k | baseline min per 1k | cold, measure off: median / min per 1k | cold+evict: median / min per 1k | cold+evict, measure off: median / min per 1k | baseline+evict: median / min per 1k |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...scaled.map(
    (r) =>
      `| ${r.messages} | ${per1k(r.cold.median, r)} | ${per1k(r.cold.min, r)} | ${per1k(r.warm.median, r)} | ${per1k(r.baseline.median, r)} | ${per1k(r.baseline.min, r)} | ${pair(r.coldUnmeasured, r)} | ${pair(r.coldEvict, r)} | ${pair(r.coldEvictUnmeasured, r)} | ${pair(r.baselineEvict, r)} |`,
  ),
  `| x8 / x1 (median / min; 1.00 = linear) | ${growth((r) => r.cold)} | | ${growth((r) => r.warm)} | ${growth((r) => r.baseline)} | | ${growth((r) => r.coldUnmeasured)} | ${growth((r) => r.coldEvict)} | ${growth((r) => r.coldEvictUnmeasured)} | ${growth((r) => r.baselineEvict)} |`,
];
const noopAnchor = rows.find((r) => r.anchor === ANCHOR.x1);

// A true no-op on the largest session: nothing summarized and error purge off (its errored args would be purged).
let trueNoop: { messages: number; timing: Timing; sameRef: boolean } | null = null;
if (largest) {
  const quiet = normalizeSettings({ purgeErrors: { enabled: false } });
  const empty = createState();
  const quietOpts = asClient(largest, empty, quiet);
  const probe = pruneMessages(largest, empty, quietOpts);
  const timing = measure(
    () => {
      pruneMessages(largest!, empty, quietOpts);
    },
    undefined,
    400,
  );
  trueNoop = { messages: largest.length, timing, sameRef: probe.messages === largest };
}

const cpus = os.cpus();
const lscpuModel = (() => {
  const r = spawnSync("lscpu", [], { encoding: "utf8" });
  const line = r.status === 0 ? r.stdout.split("\n").find((l) => l.startsWith("Model name:")) : undefined;
  return line ? line.slice("Model name:".length).trim() : undefined;
})();
const machine = `${lscpuModel ?? cpus[0]?.model ?? "unknown CPU"} x${cpus.length} logical, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}; load average during the run ${os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join("/")} (1/5/15 min; other jobs shared the 2 cores)${V8_FLAGS.length ? `; V8 flags ${V8_FLAGS.join(" ")}` : ""}`;
const revision = (() => {
  const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" });
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "packages/core/src"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  if (head.status !== 0) return "unknown";
  return `${head.stdout.trim()}${dirty.stdout.trim() ? " + uncommitted changes in packages/core/src" : ""}`;
})();
const out = [
  `Machine: ${machine}`,
  `Code: ${revision}`,
  `Date: ${new Date().toISOString()}`,
  "",
  table.join("\n"),
  "",
  "`*` = the empty-state render still changed the array (error purge or orphan sweep act without any state), so it is not a no-op for that session.",
  "The machine is shared: when the load average exceeds the 2 cores, medians include preemption; `min` is the intrinsic cost.",
  "",
  "Linearity (largest session and its concatenations), ms per 1000 messages:",
  "",
  ...perK,
  noopAnchor
    ? `\nEmpty-state render on ${noopAnchor.messages} messages: ${f2(noopAnchor.noop.median)} ms (min ${f2(noopAnchor.noop.min)})${noopAnchor.noopPruned ? " — not a no-op here (error purge / orphan sweep act)" : ""}.`
    : "",
  trueNoop
    ? `True no-op (empty state, error purge off, nothing to sweep) on ${trueNoop.messages} messages: median ${f2(trueNoop.timing.median)} ms, min ${f2(trueNoop.timing.min)} ms, same reference returned: ${trueNoop.sameRef}; vs anchor ${ANCHOR.noop} ms = ${(ANCHOR.noop / trueNoop.timing.median).toFixed(1)}x.`
    : "",
].join("\n");
console.log(out);

if (writeDocs) {
  const doc = resolve(REPO_ROOT, "docs/benchmarks.md");
  writeBenchSection(
    doc,
    "## Core render (bench:core)",
    `## Core render (bench:core)\n\n${METHOD}\n\n### Current figures\n\n${out}\n`,
  );
  console.log(`\n[bench:core] wrote ${doc}`);
}
