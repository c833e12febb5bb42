/**
 * `pnpm bench:summarizer`: the deterministic summarizer on real pi sessions (../shared/data/sessions/pi),
 * batched per assistant turn as the worker batches them (batches under 1000 raw chars are skipped, as
 * the worker's trivial filter does). Prints per session: compression ratio (summary chars incl. guard
 * facts and ref footer / raw result chars), fidelity before and after the guard, and throughput.
 */
import { basename } from "node:path";
import { cpus } from "node:os";
import { realSessionFiles } from "@condense/test-support/sessions";
import { createDeterministicSummarizer } from "../src/summarizer.ts";
import { piSessionBatches } from "../test/support/pi-session-batches.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const files = realSessionFiles("pi");
if (files.length === 0) {
  console.log("No real sessions found (../shared/data/sessions/pi); nothing to measure.");
  process.exit(0);
}

const summarizer = createDeterministicSummarizer();
const rows: string[][] = [];
let totRaw = 0,
  totOut = 0,
  totFacts = 0,
  totBefore = 0,
  totAfter = 0,
  totBatches = 0,
  totMs = 0;

for (const file of files) {
  const batches = piSessionBatches(file);
  let raw = 0,
    out = 0,
    facts = 0,
    before = 0,
    after = 0;
  // One measured pass for the figures, then timed rounds for throughput (first round warms the JIT).
  for (const [i, { batch, laterText }] of batches.entries()) {
    const r = await summarizer.summarizeBatch(batch, {
      refs: batch.toolCalls.map((_, j) => `t${i * 100 + j + 1}`),
      laterText,
    });
    raw += r.rawChars;
    out += r.text.length;
    facts += r.fidelity.facts;
    before += r.fidelity.presentBefore;
    after += r.fidelity.presentAfter;
  }
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { batch, laterText }] of batches.entries()) {
      await summarizer.summarizeBatch(batch, { refs: batch.toolCalls.map((_, j) => `t${i * 100 + j + 1}`), laterText });
    }
  }
  const ms = (performance.now() - started) / ROUNDS;
  totRaw += raw;
  totOut += out;
  totFacts += facts;
  totBefore += before;
  totAfter += after;
  totBatches += batches.length;
  totMs += ms;
  rows.push([
    basename(file, ".jsonl"),
    String(batches.length),
    (raw / 1e3).toFixed(1),
    (out / 1e3).toFixed(1),
    `${((out / raw) * 100).toFixed(1)}%`,
    String(facts),
    (facts ? before / facts : 1).toFixed(3),
    (facts ? after / facts : 1).toFixed(3),
    (raw / 1e6 / (ms / 1000)).toFixed(1),
  ]);
}
rows.push([
  "ALL",
  String(totBatches),
  (totRaw / 1e3).toFixed(1),
  (totOut / 1e3).toFixed(1),
  `${((totOut / totRaw) * 100).toFixed(1)}%`,
  String(totFacts),
  (totBefore / totFacts).toFixed(3),
  (totAfter / totFacts).toFixed(3),
  (totRaw / 1e6 / (totMs / 1000)).toFixed(1),
]);

const header = ["session", "batches", "raw k", "summary k", "ratio", "facts", "fidelity pre", "fidelity post", "MB/s"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(
  `Deterministic summarizer on ${files.length} real pi sessions (node ${process.version}, ${cpus()[0]?.model ?? "cpu"}, ${ROUNDS} timed rounds)`,
);
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of rows) console.log(line(r));
