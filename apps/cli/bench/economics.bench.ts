/**
 * `pnpm bench:economics`: one run of the replay, default settings, over every session in
 * ../shared/data/sessions plus the README's sample, printing the cost table of docs/benchmarks.md:
 * cost saved against no compaction and against the session as recorded (its host compactions
 * applied), the oracle's best schedule replayed the same way and the policy's share of it (also in the
 * oracle's turn model), and the `eager` policy under the same cost model. `--help` for the session
 * filter.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { loadSession } from "../src/replay/load-session.ts";
import { priceOf } from "../src/replay/price-model.ts";
import { replaySession } from "../src/replay/replay-session.ts";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(`usage: pnpm bench:economics [substring ...]

Replays every session in ../shared/data/sessions (pi/ and other/) plus examples/sample-session.jsonl
with default settings and prints one table row per session. With arguments, only the sessions whose
file name contains one of them, e.g. \`pnpm bench:economics pydicom gjc_02 sample\`. The replay is
deterministic: a table can be assembled from runs over disjoint subsets.`);
  process.exit(0);
}
const root = join(import.meta.dirname, "../../..");
const shared = join(root, "../shared/data/sessions");
const files: string[] = [];
for (const dir of ["pi", "other"]) {
  const d = join(shared, dir);
  if (existsSync(d)) for (const f of readdirSync(d).sort()) if (/\.(jsonl|traj)$/.test(f)) files.push(join(d, f));
}
if (files.length === 0) console.error(`note: ${shared} is absent; only the sample is replayed`);
files.push(join(root, "examples/sample-session.jsonl"));
// Optional arguments: only the sessions whose file name contains one of them (--help).
const only = process.argv.slice(2);
const selected = only.length === 0 ? files : files.filter((f) => only.some((o) => basename(f).includes(o)));

const price = priceOf("anthropic/claude-sonnet-4-5");
console.log(
  "| session | calls | flushes | saved vs no compaction | saved vs as recorded | oracle's schedule, replayed | policy / oracle (replayed) | policy / oracle (turn model) | eager vs no compaction |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const file of selected) {
  const session = loadSession(file);
  const r = await replaySession(session, { price });
  // Today's policy under the same cost model in the same run, so "today's figure" is comparable.
  const eager = await replaySession(session, { price, settings: { flushPolicy: "eager" }, replayOracle: false });
  const o = r.oracle;
  const c = r.cost;
  const rec =
    c.hostCompactions > 0
      ? `${c.vsRecorded.savedPct} % (${c.hostCompactions} host compaction${c.hostCompactions > 1 ? "s" : ""})`
      : `${c.vsRecorded.savedPct} % (none)`;
  console.log(
    `| ${basename(file)} | ${r.calls.length} | ${r.flushes.requested} | ${c.vsNoCompaction.savedPct} % | ${rec} | ${o.replayed ? `${o.replayed.savedPct} % (${o.replayed.flushes})` : "-"} | ${(o.share * 100).toFixed(1)} % | ${(o.modelShare * 100).toFixed(1)} % | ${eager.cost.vsNoCompaction.savedPct} % |`,
  );
}
