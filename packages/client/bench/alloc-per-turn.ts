/**
 * Allocation per turn on the critical path (capture, trigger decision, applyPending + render), the same
 * replay as critical-path.bench.ts, measured as heapUsed growth around each part. No GC is forced (a
 * forced full GC before each turn drops compiled code and inflates the figures); a turn in which a
 * part's heap shrank had a scavenge inside it and is left out. The figures are heap growth in bytes,
 * deterministic up to those skipped turns; the second replay of the session is reported (the first
 * warms the JIT up, as in the bench).
 *
 * Run: `BENCH_SESSION=compact-2025 npx tsx packages/client/bench/alloc-per-turn.ts`
 */
import { basename } from "node:path";
import { realSessionFiles } from "@condense/test-support/sessions";
import { assistantTurns, condensedReplay, tick } from "./replay-support.ts";

const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function run(file: string, report: boolean): Promise<void> {
  const { client, messages } = await condensedReplay(file);
  const cap: number[] = [];
  const trig: number[] = [];
  const rend: number[] = [];
  const tot: number[] = [];
  let skipped = 0;
  for (const { message: m, assistantIndex, toolResults, branch, cloneContext } of assistantTurns(messages)) {
    const context = cloneContext();
    const h0 = process.memoryUsage().heapUsed;
    const c =
      toolResults.length > 0
        ? client.capture({ message: m, toolResults, turnIndex: assistantIndex })
        : { pushed: false };
    const h1 = process.memoryUsage().heapUsed;
    client.turnEnd({
      toolResultCount: toolResults.length,
      pushedThisTurn: c.pushed,
      usage: { tokens: 50_000, contextWindow: 200_000 },
      branch,
    });
    const h2 = process.memoryUsage().heapUsed;
    client.applyPending(context);
    client.render(context);
    const h3 = process.memoryUsage().heapUsed;
    if (h1 >= h0 && h2 >= h1 && h3 >= h2) {
      cap.push(h1 - h0);
      trig.push(h2 - h1);
      rend.push(h3 - h2);
      tot.push(h3 - h0);
    } else skipped++;
    if (toolResults.length === 0) client.messageEnd(m, branch);
    await tick();
  }
  await client.close();
  if (!report) return;
  const z0 = process.memoryUsage().heapUsed;
  const z1 = process.memoryUsage().heapUsed;
  const kb = (n: number) => (n / 1024).toFixed(1);
  console.log(
    `${basename(file, ".jsonl")}: ${tot.length} turns measured (${skipped} with a scavenge inside left out), memoryUsage() itself ~${z1 - z0} B per read (included)`,
  );
  console.log(
    `  per turn KB median / mean / max: total ${kb(med(tot))} / ${kb(sum(tot) / tot.length)} / ${kb(Math.max(...tot))}`,
  );
  console.log(
    `  capture ${kb(med(cap))} / ${kb(sum(cap) / cap.length)} / ${kb(Math.max(...cap))}; trigger ${kb(med(trig))} / ${kb(sum(trig) / trig.length)} / ${kb(Math.max(...trig))}; applyPending+render ${kb(med(rend))} / ${kb(sum(rend) / rend.length)} / ${kb(Math.max(...rend))}`,
  );
}

const only = process.env.BENCH_SESSION;
const files = realSessionFiles("pi").filter((f) => !only || basename(f).includes(only));
if (only && files[0]) await run(files[0], false);
for (const f of files) await run(f, true);
