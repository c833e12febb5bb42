/** Helpers shared by the core render benches. */
import { readdirSync, readFileSync } from "node:fs";
import { isObject, type AgentMessage } from "../src/messages.ts";

/** Clone a session k times end to end with shifted timestamps and suffixed tool ids (identities stay unique). */
export function concatenate(messages: readonly AgentMessage[], times: number): AgentMessage[] {
  let lo = Infinity,
    hi = -Infinity;
  for (const m of messages)
    if (typeof m.timestamp === "number") {
      lo = Math.min(lo, m.timestamp);
      hi = Math.max(hi, m.timestamp);
    }
  const span = hi - lo + 60_000;
  const out: AgentMessage[] = [];
  for (let k = 0; k < times; k++) {
    for (const m of messages) {
      if (k === 0) {
        out.push(m);
        continue;
      }
      const c = structuredClone(m) as Record<string, unknown>;
      if (typeof c.timestamp === "number") c.timestamp += k * span;
      if (typeof c.toolCallId === "string") c.toolCallId = `${c.toolCallId}~${k}`;
      if (Array.isArray(c.content))
        for (const b of c.content)
          if (isObject(b) && b.type === "toolCall" && typeof b.id === "string") b.id = `${b.id}~${k}`;
      out.push(c as AgentMessage);
    }
  }
  return out;
}

/**
 * Cache eviction: a read-modify-write of one word per 64-byte line over three times the last-level
 * cache this machine reports (sysfs; at least 96 MiB, far beyond the L2 per core and the TLB reach).
 * A guest that exposes no cache topology in sysfs is assumed to have 32 MiB, the L3 of one EPYC core
 * complex (getconf there reports the L3 of the whole socket, most of which no single core reaches).
 * Run between the untimed clone and the timed render, it leaves every input size in the same state:
 * nothing of the clone in any cache level, so per-message figures compare like with like.
 */
const ASSUMED_L3 = 32 * 2 ** 20;
const L3 = lastLevelCache();
export const L3_BYTES = L3.bytes;
/** Where L3_BYTES came from, for the method text. */
export const L3_SOURCE = L3.source;
export const EVICT_BYTES = Math.max(96 * 2 ** 20, 3 * L3_BYTES);
function lastLevelCache(): { bytes: number; source: string } {
  const assumed = { bytes: ASSUMED_L3, source: "assumed: this guest reports no cache topology" };
  try {
    const dir = "/sys/devices/system/cpu/cpu0/cache";
    let best = 0;
    for (const index of readdirSync(dir).filter((d) => d.startsWith("index"))) {
      const m = /^(\d+)([KMG]?)/.exec(readFileSync(`${dir}/${index}/size`, "utf8").trim());
      if (!m) continue;
      const bytes = Number(m[1]) * ({ "": 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 } as Record<string, number>)[m[2]!]!;
      best = Math.max(best, bytes);
    }
    return best ? { bytes: best, source: "reported by sysfs" } : assumed;
  } catch {
    return assumed;
  }
}
let evictBuffer: Int32Array | null = null;
export let evictSink = 0;
export function evictCaches(): void {
  const b = (evictBuffer ??= new Int32Array(EVICT_BYTES / 4));
  let s = 0;
  for (let i = 0; i < b.length; i += 16) {
    const v = b[i]! + 1;
    b[i] = v;
    s ^= v;
  }
  evictSink ^= s;
}

/**
 * Extra V8 flags for the bench's child process, from `BENCH_V8_FLAGS` (space-separated), to see how
 * the GC's settings move the figures, e.g. `--no-parallel-scavenge --no-parallel-compaction`, which
 * keep a large clone's objects closer to allocation order (docs/benchmarks.md, "Session 5").
 */
export function v8FlagsFromEnv(): string[] {
  const flags = (process.env.BENCH_V8_FLAGS ?? "").split(/\s+/).filter(Boolean);
  for (const f of flags)
    if (!f.startsWith("--")) throw new Error(`BENCH_V8_FLAGS: "${f}" is not a flag (each must start with --)`);
  return flags;
}
