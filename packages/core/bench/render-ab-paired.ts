/**
 * bench:core A/B, paired in one process: both checkouts' render modules are loaded side by side and
 * timed in alternating batches (order reversed every other round), so a load spike on this shared
 * machine lands on both. Quicker than `render-ab.ts` (no child per round, no forced GC per sample),
 * and what it shows is the render's own per-call cost; the forced GC before each batch also puts
 * each side through the optimized code a forced full GC discards.
 *
 * Modes: warm (the same message objects), cold (a fresh structuredClone per render, made before the
 * batch), cold off (as cold, `measure: false`). Per case and mode: the median over rounds of each
 * batch's mean per render, µs.
 *
 * Run: `tsx packages/core/bench/render-ab-paired.ts <checkout-a> <checkout-b> [--rounds 21] [--cases gjc_04,kimchi]`
 * (node needs --expose-gc: `node --expose-gc --import tsx packages/core/bench/render-ab-paired.ts ...`).
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const flagValue = (flag: string) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const roots = args
  .filter((a, k) => !a.startsWith("--") && !(k > 0 && ["--rounds", "--cases"].includes(args[k - 1]!)))
  .map((r) => resolve(r));
if (roots.length !== 2)
  throw new Error("usage: render-ab-paired.ts <checkout-a> <checkout-b> [--rounds N] [--cases w,w]");
const rounds = Number(flagValue("--rounds") ?? 21);
const only = (flagValue("--cases") ?? "").split(",").filter((w) => w.length > 0);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run node with --expose-gc");
const BATCH = 100;
const LARGEST = "pi-mono_fixture_before-compaction.jsonl";

interface Side {
  render: {
    pruneMessages: (m: unknown[], s: unknown, o: unknown) => unknown;
    createRenderMemo?: (s: unknown) => unknown;
    decideRenderPolicy?: (m: unknown[], s: unknown) => unknown;
  };
  readPiSession: (text: string, o: unknown) => { messages: unknown[] };
  normalizeSettings: (s: unknown) => unknown;
  build: (m: unknown[], o: unknown) => { messages: unknown[]; state: unknown };
  concatenate: (m: unknown[], k: number) => unknown[];
  sessions: (kind: string) => string[];
}
const sides: Side[] = [];
for (const root of roots) {
  const load = (p: string) => import(pathToFileURL(resolve(root, p)).href);
  const sessionsAt = ["packages/test-support/src/sessions.ts", "test/support/sessions.ts"];
  let sessions: Side["sessions"] | undefined;
  for (const p of sessionsAt) {
    try {
      sessions = (await load(p)).realSessionFiles;
      break;
    } catch {}
  }
  sides.push({
    render: await load("packages/core/src/render/prune-messages.ts"),
    readPiSession: (await load("packages/core/src/session-reader.ts")).readPiSession,
    normalizeSettings: (await load("packages/core/src/settings.ts")).normalizeSettings,
    build: (await load("packages/core/test/support/condensed-state.ts")).buildCondensedState,
    concatenate: (await load("packages/core/bench/bench-support.ts")).concatenate,
    sessions: sessions!,
  });
}

const wanted = (name: string) => only.length === 0 || only.some((w) => name.includes(w));
const cases: [string, (s: Side) => unknown[]][] = [];
for (const file of sides[1]!.sessions("pi")) {
  const name = basename(file, ".jsonl");
  const read = (s: Side) => s.readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" }).messages;
  if (wanted(name)) cases.push([name, read]);
}
const largest = sides[1]!.sessions("pi").find((f) => basename(f) === LARGEST);
if (largest)
  for (const k of [4, 8]) {
    const name = `${basename(LARGEST, ".jsonl")} x${k}`;
    const read = (s: Side) =>
      s.concatenate(s.readPiSession(readFileSync(largest, "utf8"), { compaction: "ignore" }).messages, k);
    if (wanted(name)) cases.push([name, read]);
  }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1]!;
const MODES = ["warm", "cold", "cold off"] as const;
console.log(`A = ${roots[0]}; B = ${roots[1]}; ${rounds} rounds of ${BATCH} renders per side and mode.\n`);
console.log("| case | mode | A µs | B µs | B/A |\n|---|---|---:|---:|---:|");
for (const [name, read] of cases) {
  const fixtures = sides.map((s) => {
    const settings = s.normalizeSettings({});
    const fx = s.build(read(s), { keepLastUserTurns: 3, settings });
    const opts: Record<string, unknown> = { settings };
    if (typeof s.render.createRenderMemo === "function") opts.memo = s.render.createRenderMemo(fx.state);
    if (typeof s.render.decideRenderPolicy === "function")
      opts.policy = s.render.decideRenderPolicy(fx.messages, settings);
    return { fx, opts, off: { ...opts, measure: false } };
  });
  for (const mode of MODES) {
    const per: number[][] = [[], []];
    // Two untimed rounds first: both sides compiled and their memos warm before anything counts.
    for (let round = -2; round < rounds; round++) {
      for (const k of round % 2 ? [1, 0] : [0, 1]) {
        const { fx, opts, off } = fixtures[k]!;
        const o = mode === "cold off" ? off : opts;
        const inputs = mode === "warm" ? null : Array.from({ length: BATCH }, () => structuredClone(fx.messages));
        gc();
        const t = performance.now();
        for (let i = 0; i < BATCH; i++) sides[k]!.render.pruneMessages(inputs ? inputs[i]! : fx.messages, fx.state, o);
        if (round >= 0) per[k]!.push(((performance.now() - t) / BATCH) * 1000);
      }
    }
    const a = median(per[0]!);
    const b = median(per[1]!);
    console.log(`| ${name} | ${mode} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
  }
}
