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
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { isAssistant, isToolResult, normalizeSettings, readPiSession, STATE_DELTA_FORMAT, type AgentMessage, type CondenseState, type StateDelta } from "@condense/core";
import { createCondenseClient, type CondenseHost } from "../src/index.ts";
import { realSessionFiles } from "../../../test/support/sessions.ts";
import { buildCondensedState } from "../../core/test/support/condensed-state.ts";

const settings = normalizeSettings({});

function deltaOf(state: CondenseState): StateDelta {
  return {
    format: STATE_DELTA_FORMAT, fromVersion: 0, toVersion: 1,
    records: [...state.records.values()], summaries: [...state.summaries],
    aliases: [...state.aliases].map(([key, originalKey]) => ({ key, originalKey })),
    chains: [...state.chains], frontier: state.frontier, stats: state.stats,
  };
}
function memoryHost(delta: StateDelta): CondenseHost {
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  let seq = 0;
  return {
    baseUrl: "http://bench.local", apiKey: "ck_bench", close: async () => {},
    fetch: async (input, init) => {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      if (url.pathname.endsWith("/state")) return json(Number(url.searchParams.get("since")) >= 1 ? { ...delta, fromVersion: 1, records: [], summaries: [], aliases: [], chains: [] } : delta);
      if (url.pathname.endsWith("/captures")) return json({ captureId: JSON.parse(String(init?.body)).captureId, accepted: 1, duplicates: 0, maxSeq: ++seq });
      if (url.pathname.endsWith("/flushes")) return json({ flushId: "f", cursor: seq, trigger: "manual", created: true }, 202);
      return json({ error: { code: "not_found", message: url.pathname } }, 404);
    },
  };
}
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] ?? 0; };
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const tick = () => new Promise<void>((r) => setImmediate(r));

async function run(file: string, report: boolean): Promise<void> {
  const raw = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" }).messages;
  const fixture = buildCondensedState(raw, { keepLastUserTurns: 3, settings });
  const messages = fixture.messages;
  const client = createCondenseClient({ sessionId: "bench", host: memoryHost(deltaOf(fixture.state)), settings, sse: false });
  await client.sync();
  client.applyPending();
  const cap: number[] = []; const trig: number[] = []; const rend: number[] = []; const tot: number[] = [];
  let assistantIndex = -1;
  let skipped = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (!isAssistant(m)) continue;
    assistantIndex++;
    let end = i + 1;
    while (end < messages.length && isToolResult(messages[end])) end++;
    const toolResults = messages.slice(i + 1, end);
    const context = structuredClone(messages.slice(0, end)) as AgentMessage[];
    const branch = () => messages.slice(0, end);
    const h0 = process.memoryUsage().heapUsed;
    const c = toolResults.length > 0 ? client.capture({ message: m, toolResults, turnIndex: assistantIndex }) : { pushed: false };
    const h1 = process.memoryUsage().heapUsed;
    client.turnEnd({ toolResultCount: toolResults.length, pushedThisTurn: c.pushed, usage: { tokens: 50_000, contextWindow: 200_000 }, branch });
    const h2 = process.memoryUsage().heapUsed;
    client.applyPending(context);
    client.render(context);
    const h3 = process.memoryUsage().heapUsed;
    if (h1 >= h0 && h2 >= h1 && h3 >= h2) { cap.push(h1 - h0); trig.push(h2 - h1); rend.push(h3 - h2); tot.push(h3 - h0); }
    else skipped++;
    if (toolResults.length === 0) client.messageEnd(m, branch);
    await tick();
  }
  await client.close();
  if (!report) return;
  const z0 = process.memoryUsage().heapUsed; const z1 = process.memoryUsage().heapUsed;
  const kb = (n: number) => (n / 1024).toFixed(1);
  console.log(`${basename(file, ".jsonl")}: ${tot.length} turns measured (${skipped} with a scavenge inside left out), memoryUsage() itself ~${z1 - z0} B per read (included)`);
  console.log(`  per turn KB median / mean / max: total ${kb(med(tot))} / ${kb(sum(tot) / tot.length)} / ${kb(Math.max(...tot))}`);
  console.log(`  capture ${kb(med(cap))} / ${kb(sum(cap) / cap.length)} / ${kb(Math.max(...cap))}; trigger ${kb(med(trig))} / ${kb(sum(trig) / trig.length)} / ${kb(Math.max(...trig))}; applyPending+render ${kb(med(rend))} / ${kb(sum(rend) / rend.length)} / ${kb(Math.max(...rend))}`);
}

const only = process.env.BENCH_SESSION;
const files = realSessionFiles("pi").filter((f) => !only || basename(f).includes(only));
if (only && files[0]) await run(files[0], false);
for (const f of files) await run(f, true);
