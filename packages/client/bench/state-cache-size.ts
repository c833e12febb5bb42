/**
 * What the state cache costs on the largest real sessions (their condensed state as bench:client builds
 * it): file size, the serialization (synchronous, on the event loop but off the agent's turn), the async
 * write + rename, and the read + parse + index at session start (off session_start). Usage:
 *   npx tsx packages/client/bench/state-cache-size.ts [session.jsonl ...]
 * (default: the three largest pi sessions in ../shared/data/sessions/pi).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyDelta, createState, readPiSession, STATE_DELTA_FORMAT } from "@condense/core";
import { StateCache } from "../src/index.ts";
import { buildCondensedState } from "../../core/test/support/condensed-state.ts";
import { settings } from "./replay-support.ts";

const dir = join(import.meta.dirname, "../../../../shared/data/sessions/pi");
const files =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : readdirSync(dir)
        .map((n) => join(dir, n))
        .sort((a, b) => statSync(b).size - statSync(a).size)
        .slice(0, 3);

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const file of files) {
  const raw = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" }).messages;
  const fixture = buildCondensedState(raw, { keepLastUserTurns: 3, settings });
  const indexed = applyDelta(createState(), {
    format: STATE_DELTA_FORMAT,
    fromVersion: 0,
    toVersion: 1,
    records: [...fixture.state.records.values()],
    summaries: [...fixture.state.summaries],
    aliases: [...fixture.state.aliases].map(([key, originalKey]) => ({ key, originalKey })),
    chains: [...fixture.state.chains],
    frontier: fixture.state.frontier,
    stats: fixture.state.stats,
  });
  if (!indexed.ok) throw new Error(indexed.message);
  const path = join(mkdtempSync(join(tmpdir(), "condense-state-cache-bench-")), "s.json");
  const cache = new StateCache(path, "local:/bench", "bench");
  const serialize: number[] = [];
  const write: number[] = [];
  const save: number[] = [];
  const load: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 9; i++) {
    const state = { ...indexed.state, version: i + 2 };
    const t0 = performance.now();
    cache.save(state);
    save.push(performance.now() - t0);
    await cache.idle();
    serialize.push(cache.lastWrite!.serializeMs);
    write.push(cache.lastWrite!.writeMs);
    bytes = cache.lastWrite!.bytes;
    const r = await new StateCache(path, "local:/bench", "bench").load();
    if (!r.ok) throw new Error(r.detail);
    load.push(r.ms);
  }
  console.log(
    `${file.split("/").at(-1)}: ${fixture.state.records.size} records, ${fixture.state.summaries.length} summaries, ` +
      `${fixture.state.chains.length} chains; file ${(bytes / 1024).toFixed(0)} KiB; median of 9: ` +
      `save() on the turn ${median(save).toFixed(3)} ms, serialize ${median(serialize).toFixed(1)} ms, ` +
      `write+rename ${median(write).toFixed(1)} ms, load (read+parse+index) ${median(load).toFixed(1)} ms`,
  );
}
