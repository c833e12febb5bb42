/**
 * bench:client — what Condense costs the agent per turn on its critical path, on the real pi sessions
 * replayed turn by turn through @condense/client: `capture` (turn_end), the trigger decisions
 * (`turnEnd`, `messageEnd`) and `render` (the `context` hook) against a mirror holding a full condensed
 * state. The network is never on this path: the client talks to an in-memory host here, and its sends
 * happen between turns (not timed). Building the flush request (metrics, chains, grace) happens only on
 * trigger turns and is reported on its own. For scale, an in-turn summarizer waits on an LLM call: a
 * local fake LLM with a fixed latency is timed the same way.
 *
 * Run: `pnpm bench:client` (`--no-write` skips docs/benchmarks.md).
 */
import { basename, join } from "node:path";
import os from "node:os";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { writeBenchSection, writesBenchmarksDoc } from "@condense/test-support/benchmarks-doc";
import { startFakeProvider } from "@condense/test-support/fake-provider";
import { realSessionFiles, REPO_ROOT } from "@condense/test-support/sessions";
import { assistantTurns, condensedReplay, tick } from "./replay-support.ts";

const writeDocs = writesBenchmarksDoc();
const FAKE_LLM_LATENCY_MS = 2_000;
const READING = [
  "Reading: capture and the trigger decisions stay around 0.1-0.2 ms; the rest is the render (core `pruneMessages`, with",
  "`measure: false` except once per applied state, over a fresh clone of the conversation so far). The clone is made right",
  "before the render and not collected first, as pi does it, so a scavenge that lands inside a render copies that live",
  "clone (several ms). How often that happens follows what the timed window allocates, which `bench/alloc-per-turn.ts`",
  "measures: on the largest session about 25 KB per turn, 23 KB of it the render and 9.6 KB of that its output array. A `gc`",
  "PerformanceObserver counts the turns with a GC pause inside their timed window (column above). Without GC, p99 is set",
  "by the render on the longest contexts, plus preemption on this shared 2-core machine. p99 over a few hundred turns is the five or so slowest",
  'turns, so it moves from run to run. The spread of repeated runs on each host is recorded under "Client: rounds of work',
  "on the critical path\" below; p50 is the typical cost. An in-turn summarizer pays the LLM's latency on every flush turn",
  "instead.",
].join("\n");

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (ns: bigint) => Number(ns) / 1e6;

/**
 * GC pauses seen by a `gc` PerformanceObserver, as [start, end] in performance.now() ms. Entries arrive
 * asynchronously; every turn awaits a tick, and the count is read after the session's replay.
 */
const gcPauses: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ["gc"] });
/** Timed windows ([start, end], performance.now() ms) that overlap a GC pause. */
function windowsWithGc(windows: [number, number][]): number {
  let n = 0;
  for (const [a, b] of windows) if (gcPauses.some(([s, e]) => s < b && e > a)) n++;
  return n;
}

interface Row {
  session: string;
  messages: number;
  turns: number;
  gcTurns: number;
  p50: number;
  p99: number;
  max: number;
  renderP99: number;
  captureP99: number;
  triggerP99: number;
  flushBuilds: number;
  flushP50: number;
  flushP99: number;
  buildP50: number;
  buildP99: number;
}

async function benchSession(file: string): Promise<Row> {
  const built: number[] = [];
  const { client, messages } = await condensedReplay(file, (e) => {
    if (e.type === "flush-queued") built.push(e.buildMs);
  });
  const total: number[] = [];
  const render: number[] = [];
  const capture: number[] = [];
  const trigger: number[] = [];
  const flush: number[] = [];
  const windows: [number, number][] = [];
  let turns = 0;
  for (const { message: m, assistantIndex, toolResults, branch, cloneContext } of assistantTurns(messages)) {
    const context = cloneContext();
    const w0 = performance.now();
    const t0 = process.hrtime.bigint();
    const cap =
      toolResults.length > 0
        ? client.capture({ message: m, toolResults, turnIndex: assistantIndex })
        : { pushed: false };
    const t1 = process.hrtime.bigint();
    client.turnEnd({
      toolResultCount: toolResults.length,
      pushedThisTurn: cap.pushed,
      usage: { tokens: 50_000, contextWindow: 200_000 },
      branch,
    });
    const t2 = process.hrtime.bigint();
    client.applyPending(context);
    client.render(context);
    const t3 = process.hrtime.bigint();
    windows.push([w0, performance.now()]);
    // The reply trigger builds a flush request; timed separately (it only runs on reply turns).
    const f0 = process.hrtime.bigint();
    const d = toolResults.length === 0 ? client.messageEnd(m, branch) : { flush: false };
    const f1 = process.hrtime.bigint();
    if (d.flush) flush.push(ms(f1 - f0));
    capture.push(ms(t1 - t0));
    trigger.push(ms(t2 - t1));
    render.push(ms(t3 - t2));
    total.push(ms(t3 - t0));
    turns++;
    await tick();
  }
  await client.close();
  await tick();
  return {
    session: basename(file, ".jsonl"),
    messages: messages.length,
    turns,
    gcTurns: windowsWithGc(windows),
    p50: pct(total, 50),
    p99: pct(total, 99),
    max: Math.max(...total),
    renderP99: pct(render, 99),
    captureP99: pct(capture, 99),
    triggerP99: pct(trigger, 99),
    flushBuilds: flush.length,
    flushP50: pct(flush, 50),
    flushP99: pct(flush, 99),
    buildP50: pct(built, 50),
    buildP99: pct(built, 99),
  };
}

/** One round trip to a local fake LLM that answers after FAKE_LLM_LATENCY_MS: what an in-turn summarizer waits. */
async function inTurnSummarizerWait(): Promise<number> {
  const llm = await startFakeProvider(() => ({ kind: "ok", text: "- summary", delayMs: FAKE_LLM_LATENCY_MS }));
  const t0 = process.hrtime.bigint();
  await (
    await fetch(`${llm.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "fake", messages: [] }),
    })
  ).text();
  const waited = ms(process.hrtime.bigint() - t0);
  await llm.close();
  return waited;
}

// BENCH_SESSION=<substring> keeps only the matching sessions (for iterating; the docs table needs all).
const only = process.env.BENCH_SESSION;
const files = realSessionFiles("pi").filter((f) => !only || basename(f).includes(only));
if (files.length === 0) {
  console.warn("bench:client needs the real pi sessions in ../shared/data/sessions/pi; nothing to measure");
  process.exit(0);
}
const rows: Row[] = [];
// A filtered run would otherwise time its session cold (the full run's earlier sessions warm the JIT up).
if (only && files[0]) await benchSession(files[0]);
for (const f of files) {
  const row = await benchSession(f);
  rows.push(row);
  console.log(
    `${row.session}: ${row.turns} turns, p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms, ${row.gcTurns} turns with a GC inside (${gcPauses.length} GC pauses seen so far)`,
  );
}
const largest = rows.reduce((a, b) => (b.messages > a.messages ? b : a));
const wait = await inTurnSummarizerWait();
const f3 = (n: number) => n.toFixed(3);
const table = [
  "| session | messages | turns | turns with a GC inside | p50 ms | p99 ms | max ms | render p99 | capture p99 | trigger p99 | reply triggers | reply trigger p50 / p99 ms (on the turn) | request build p50 / p99 ms (after it) |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.session} | ${r.messages} | ${r.turns} | ${r.gcTurns} | ${f3(r.p50)} | ${f3(r.p99)} | ${f3(r.max)} | ${f3(r.renderP99)} | ${f3(r.captureP99)} | ${f3(r.triggerP99)} | ${r.flushBuilds} | ${f3(r.flushP50)} / ${f3(r.flushP99)} | ${f3(r.buildP50)} / ${f3(r.buildP99)} |`,
  ),
].join("\n");
const verdict =
  `Largest session (${largest.session}, ${largest.messages} messages): p99 ${f3(largest.p99)} ms per turn (target < 1 ms: ${largest.p99 < 1 ? "met" : "NOT met"}). ` +
  `An in-turn summarizer waits on its LLM call instead: ${wait.toFixed(0)} ms with a ${FAKE_LLM_LATENCY_MS} ms fake LLM, on every flush turn (a real provider takes seconds).`;
console.log(`\n${table}\n\n${verdict}`);

if (writeDocs) {
  const docs = join(REPO_ROOT, "docs", "benchmarks.md");
  const section = [
    "## Client (bench:client)",
    "",
    `Current figures: run ${new Date().toISOString().slice(0, 10)} with \`pnpm bench:client\`. Machine: ${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load average at the end of the run ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join("/")} (1/5/15 min, 2 cores shared with other jobs).`,
    "",
    'Method: every real pi session is read with `readPiSession(text, {compaction: "ignore"})`, given the condensed state a long',
    "session reaches (core's `buildCondensedState`, everything older than the last 3 user turns flushed, older closed chains",
    "compressed), served to `createCondenseClient` by an in-memory host and applied once. Then each assistant turn is replayed:",
    "`capture` (turn_end), `turnEnd` (budget/delta gate), `applyPending` + `render` on a fresh `structuredClone` of the",
    "conversation so far (what pi's `context` hook hands over; the clone is not timed). The per-turn time is the sum; the",
    "outbox work (storable copies, spool appends with a spool file as the pi extension runs, sends) runs between turns and is",
    "not timed (it never blocks a turn). The reply trigger (`messageEnd` on a text-only reply) is timed on its own: on the",
    "turn it only decides and schedules; the flush request (metrics snapshot, chain detection, grace keys) is built on the",
    "next event-loop turn, while the agent waits on its model, and its build time is reported from the client's",
    "`flush-queued` event. The budget and turn-delta triggers in `turnEnd` defer their build the same way.",
    "",
    table,
    "",
    verdict,
    "",
    READING,
    "",
    "",
  ].join("\n");
  writeBenchSection(docs, "## Client (bench:client)", section);
  console.log(`\nwrote the "Client (bench:client)" section of ${docs}`);
}
