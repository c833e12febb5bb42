/**
 * bench:core A/B — the render of two or more checkouts on the same inputs, alternating, in one run.
 * Each round spawns one child per checkout (order reversed every other round); a child imports that
 * checkout's own `pruneMessages`, state builder and session reader, so each side renders the state
 * its own code builds. Reported: per case and mode, the median over rounds of each child's median, and
 * the ratio of every checkout to the first.
 *
 * Modes (all renders as the client calls them: the state's memo and the policy decided at apply when
 * the checkout has them, `measure` on unless said):
 *   warm        the same message objects every render;
 *   cold+gc     a fresh structuredClone before every render, then a forced full GC (both untimed): the
 *               render starts on a collected heap with the clone promoted to old space;
 *   cold        a fresh structuredClone before every render, no forced GC: the collector runs when the
 *               allocation of clones and renders asks for it, sometimes inside a timed render;
 *   cold off    as cold, with `measure: false` (how the client renders between two applied states);
 *   amortized   what a render adds to pi's own clone: (time of N x [clone + render] - time of N x
 *               [clone]) / N, GC included wherever it lands. This is the figure a host pays per call.
 *   amortized cpu  the same loops in CPU time of the process (`process.cpuUsage`, user + system, GC
 *               threads included): a difference of two loops that another process on the machine
 *               does not move, where the wall-clock one goes negative on a loaded shared machine.
 *
 * Run: `tsx packages/core/bench/render-ab.ts /path/to/checkout-a /path/to/checkout-b [--rounds 5]
 * [--cases gjc_04,kimchi]`; `--cases` keeps the cases whose name contains one of the comma-separated
 * words (quick iteration on a few sessions; the x4 / x8 cases are named after the largest session).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const self = fileURLToPath(import.meta.url);
const LARGEST = "pi-mono_fixture_before-compaction.jsonl";
const MODES = ["warm", "cold+gc", "cold", "cold off", "amortized", "amortized cpu"] as const;
type Mode = (typeof MODES)[number];
type Result = Record<string, Record<Mode, number>>;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[(s.length - 1) >> 1]!;
};

async function child(root: string, only: readonly string[]): Promise<void> {
  const load = (p: string) => import(pathToFileURL(resolve(root, p)).href);
  // The session finder moved to the shared test-support package; an older checkout has it under test/support.
  const firstPresent = (...paths: string[]) => paths.find((p) => existsSync(resolve(root, p))) ?? paths[0]!;
  const render = await load("packages/core/src/render/prune-messages.ts");
  const { readPiSession } = await load("packages/core/src/session-reader.ts");
  const { normalizeSettings } = await load("packages/core/src/settings.ts");
  const { buildCondensedState } = await load("packages/core/test/support/condensed-state.ts");
  const { concatenate } = await load("packages/core/bench/bench-support.ts");
  const { realSessionFiles } = await load(
    firstPresent("packages/test-support/src/sessions.ts", "test/support/sessions.ts"),
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the child needs --expose-gc");
  const settings = normalizeSettings({});
  const budget = Number(process.env.AB_BUDGET_MS ?? 600);
  const now = () => Number(process.hrtime.bigint()) / 1e6;

  function timed(run: () => void, prepare: () => void): number {
    for (let i = 0; i < 3; i++) {
      prepare();
      run();
    }
    const samples: number[] = [];
    let spent = 0;
    while ((spent < budget || samples.length < 11) && samples.length < 200) {
      prepare();
      const t = now();
      run();
      const d = now() - t;
      samples.push(d);
      spent += d;
    }
    return median(samples);
  }
  /** Wall and CPU ms of n runs of body. */
  function loop(n: number, body: () => void): { wall: number; cpu: number } {
    const c = process.cpuUsage();
    const t = now();
    for (let i = 0; i < n; i++) body();
    const wall = now() - t;
    const u = process.cpuUsage(c);
    return { wall, cpu: (u.user + u.system) / 1000 };
  }

  // Only the sessions a kept case needs are read: a smaller heap makes each forced GC shorter.
  const wanted = (name: string) => only.length === 0 || only.some((w) => name.includes(w));
  const multiples = [4, 8].filter((k) => wanted(`${basename(LARGEST, ".jsonl")} x${k}`));
  const cases: [string, unknown[]][] = [];
  for (const file of realSessionFiles("pi") as string[]) {
    const name = basename(file, ".jsonl");
    const isLargest = basename(file) === LARGEST && multiples.length > 0;
    if (!wanted(name) && !isLargest) continue;
    const { messages } = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" });
    if (wanted(name)) cases.push([name, messages]);
    if (isLargest) for (const k of multiples) cases.push([`${name} x${k}`, concatenate(messages, k)]);
  }
  // Cases in the order of a full run: the sessions, then the multiples of the largest.
  cases.sort((a, b) => Number(a[0].includes(" x")) - Number(b[0].includes(" x")));

  const out: Result = {};
  for (const [name, messages] of cases) {
    const fx = buildCondensedState(messages, { keepLastUserTurns: 3, settings });
    const base = fx.messages as unknown[];
    const opts: Record<string, unknown> = { settings };
    if (typeof render.createRenderMemo === "function") opts.memo = render.createRenderMemo(fx.state);
    if (typeof render.decideRenderPolicy === "function") opts.policy = render.decideRenderPolicy(base, settings);
    const off = { ...opts, measure: false };
    const prune = (m: unknown[], o: unknown) => render.pruneMessages(m, fx.state, o);
    prune(base, opts);
    let fresh = base;
    const r = {} as Record<Mode, number>;
    gc();
    r.warm = timed(
      () => prune(base, opts),
      () => {},
    );
    r["cold+gc"] = timed(
      () => prune(fresh, opts),
      () => {
        fresh = structuredClone(base);
        gc();
      },
    );
    gc();
    r.cold = timed(
      () => prune(fresh, opts),
      () => {
        fresh = structuredClone(base);
      },
    );
    gc();
    r["cold off"] = timed(
      () => prune(fresh, off),
      () => {
        fresh = structuredClone(base);
      },
    );
    // Amortized: N clones with and without a render each, alternating halves, GC wherever it lands.
    const n = Math.max(10, Math.min(200, Math.round(budget / Math.max(0.05, r.cold + r.warm))));
    let withRender = 0;
    let cloneOnly = 0;
    let withRenderCpu = 0;
    let cloneOnlyCpu = 0;
    for (let half = 0; half < 4; half++) {
      gc();
      const a = loop(n, () => prune(structuredClone(base), opts));
      gc();
      const b = loop(n, () => {
        fresh = structuredClone(base);
      });
      withRender += a.wall;
      cloneOnly += b.wall;
      withRenderCpu += a.cpu;
      cloneOnlyCpu += b.cpu;
    }
    r.amortized = (withRender - cloneOnly) / (4 * n);
    r["amortized cpu"] = (withRenderCpu - cloneOnlyCpu) / (4 * n);
    out[name] = r;
  }
  process.stdout.write(`AB-RESULT ${JSON.stringify(out)}\n`);
}

function parent(roots: string[], rounds: number, only: readonly string[]): void {
  const runs: Result[][] = roots.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = roots.map((_, k) => k);
    if (round % 2 === 1) order.reverse();
    for (const k of order) {
      const r = spawnSync(
        process.execPath,
        ["--expose-gc", ...process.execArgv, self, "--child", roots[k]!, only.join(",")],
        {
          encoding: "utf8",
          maxBuffer: 1 << 26,
          env: process.env,
        },
      );
      const line = r.stdout.split("\n").find((l) => l.startsWith("AB-RESULT "));
      if (!line) {
        process.stderr.write(r.stderr);
        throw new Error(`child for ${roots[k]} failed`);
      }
      runs[k]!.push(JSON.parse(line.slice("AB-RESULT ".length)) as Result);
      process.stderr.write(`round ${round + 1}/${rounds}: ${basename(roots[k]!)} done\n`);
    }
  }
  const names = Object.keys(runs[0]![0]!);
  const med = (k: number, name: string, mode: Mode) => median(runs[k]!.map((r) => r[name]?.[mode] ?? Number.NaN));
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  console.log(`Roots: ${roots.map((r, k) => `${String.fromCharCode(65 + k)} = ${r}`).join("; ")}; ${rounds} rounds.`);
  console.log("Medians over rounds of each run's median, ms; ratios to A.\n");
  for (const mode of MODES) {
    console.log(`### ${mode}\n`);
    const cols = roots.map((_, k) => String.fromCharCode(65 + k));
    const ratios = cols.slice(1).map((c) => `${c}/A`);
    console.log(`| case | ${[...cols, ...ratios].join(" | ")} |`);
    console.log(`|---|${[...cols, ...ratios].map(() => "---:").join("|")}|`);
    const sums = roots.map(() => 0);
    for (const name of names) {
      const v = roots.map((_, k) => med(k, name, mode));
      v.forEach((x, k) => {
        sums[k] = sums[k]! + x;
      });
      console.log(`| ${name} | ${[...v.map(f), ...v.slice(1).map((x) => (x / v[0]!).toFixed(2))].join(" | ")} |`);
    }
    console.log(`| sum | ${[...sums.map(f), ...sums.slice(1).map((x) => (x / sums[0]!).toFixed(2))].join(" | ")} |\n`);
  }
}

const args = process.argv.slice(2);
const words = (list: string | undefined) => (list ?? "").split(",").filter((w) => w.length > 0);
if (args[0] === "--child") await child(args[1]!, words(args[2]));
else {
  const flagValue = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const rounds = Number(flagValue("--rounds") ?? 3);
  const only = words(flagValue("--cases"));
  const roots = args
    .filter((a, k) => !a.startsWith("--") && !(k > 0 && ["--rounds", "--cases"].includes(args[k - 1]!)))
    .map((r) => resolve(r));
  if (roots.length < 2)
    throw new Error("usage: render-ab.ts <checkout-a> <checkout-b> [...] [--rounds N] [--cases word,word]");
  parent(roots, rounds, only);
}
