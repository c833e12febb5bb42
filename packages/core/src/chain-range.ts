/**
 * The one chain-range resolver (CAP-RENDER-9), used by the render's chain-range prune and by chain
 * planning's record extraction. Fail closed: an entry resolves only when its start user message and
 * its final assistant each occur exactly once, the start first; an interrupted chain, a missing or
 * repeated boundary, or boundaries out of order resolve to null, and nothing is dropped. Role-gated:
 * a tool result sharing the millisecond never counts.
 */
import type { AgentMessage } from "./messages.ts";
import { isChainSynthetic } from "./render/message-shape.ts";
import { lowerBound } from "./sorted-search.ts";
import type { ChainEntry } from "./state-types.ts";

export interface ResolvedRange {
  startIndex: number;
  endIndex: number;
}

export type RangeBoundaries = Pick<ChainEntry, "startUserTimestamp" | "finalAssistantTimestamp">;

export interface RangeIndexOptions {
  /**
   * Leave Condense's own `<compressed-chain>` user messages out of the start-boundary count. The
   * renderer sets this: a synthetic's timestamp (compressedAt) must never make a start ambiguous, or a
   * second render of rendered output would resolve differently from the first.
   */
  skipChainSynthetics?: boolean;
}

/** The sorted distinct timestamps of one kind of boundary (starts or ends). */
function sortedDistinct(timestamps: readonly number[]): Float64Array {
  return Float64Array.from(new Set(timestamps)).sort();
}

/** The slot of `t` in sorted `ts` by bisection, or -1 when `t` is not there (no map key built from it). */
function slotOf(ts: Float64Array, t: number): number {
  const lo = lowerBound(ts, t);
  return lo < ts.length && ts[lo] === t ? lo : -1;
}

/**
 * Where, and how often, one resolution met each boundary of one kind (one slot per sorted timestamp).
 * A plain record built per `resolve`, not a class instance: V8 deoptimizes code that constructs class
 * instances on every forced full GC (Node 20, measured: docs/bench-log/2026-12-04-s12-render.md); this runs on every render.
 */
interface Tally {
  readonly ts: Float64Array;
  readonly at: Int32Array;
  readonly count: Int32Array;
  /** Where the last `seek` landed (the lower bound of the timestamp it looked for). */
  cursor: number;
}

function newTally(ts: Float64Array): Tally {
  return { ts, at: new Int32Array(ts.length).fill(-1), count: new Int32Array(ts.length), cursor: 0 };
}

/**
 * `slotOf(tally.ts, t)` for the timestamp `t` of message `i`, met in history order. Timestamps rise
 * along a history, so the slot of the next one is at or just past the last: walk a few steps forward
 * from there, and bisect only when the timestamp went back or jumped far.
 */
function seek(tally: Tally, timestamps: Float64Array, i: number): number {
  const t = timestamps[i]!;
  const ts = tally.ts;
  let k = tally.cursor;
  if (k > 0 && ts[k - 1]! >= t) k = lowerBound(ts, t);
  else
    for (let steps = 0; k < ts.length && ts[k]! < t; k++)
      if (++steps > 4) {
        k = lowerBound(ts, t);
        break;
      }
  tally.cursor = k;
  return k < ts.length && ts[k] === t ? k : -1;
}

function meet(tally: Tally, k: number, i: number): void {
  tally.at[k] = i;
  tally.count[k]!++;
}

/** The one position `t` was met at, or -1 when it was met never or more than once. */
function onlyAt(tally: Tally, t: number): number {
  const k = slotOf(tally.ts, t);
  return k >= 0 && tally.count[k] === 1 ? tally.at[k]! : -1;
}

const hasFinal = (e: RangeBoundaries): e is RangeBoundaries & { finalAssistantTimestamp: number } =>
  e.finalAssistantTimestamp !== null && e.finalAssistantTimestamp !== undefined;

/** A message's role as a range boundary in a `BoundaryReading`. */
export const Boundary = { NONE: 0, USER: 1, ASSISTANT: 2 } as const;

/**
 * What a caller has already read of each message: its role as a boundary (`Boundary`) and its
 * numeric timestamp (NaN without one). The render reads every message once and hands this over, so
 * the resolver touches no message object (but a start candidate it must check for being a synthetic).
 */
export interface BoundaryReading {
  readonly roles: Uint8Array;
  readonly timestamps: Float64Array;
}

/** The boundary reading of messages, read here (callers that have not read them yet). */
export function readBoundaries(messages: readonly unknown[]): BoundaryReading {
  const n = messages.length;
  const roles = new Uint8Array(n);
  const timestamps = new Float64Array(n).fill(Number.NaN);
  for (let i = 0; i < n; i++) {
    const m = messages[i] as { role?: unknown; timestamp?: unknown } | null;
    if (!m || typeof m !== "object") continue;
    const role = m.role === "assistant" ? Boundary.ASSISTANT : m.role === "user" ? Boundary.USER : Boundary.NONE;
    if (role === Boundary.NONE || typeof m.timestamp !== "number") continue;
    roles[i] = role;
    timestamps[i] = m.timestamp;
  }
  return { roles, timestamps };
}

/**
 * Every entry's range in one pass over the messages, in the entries' order (null = unresolved). Only
 * the entries' own boundary timestamps are looked for.
 */
export function resolveRanges(
  messages: readonly AgentMessage[] | readonly unknown[],
  entries: readonly RangeBoundaries[],
  opts?: RangeIndexOptions,
): (ResolvedRange | null)[] {
  const skip = opts?.skipChainSynthetics === true ? (i: number) => isChainSynthetic(messages[i]) : undefined;
  return resolveReadRanges(readBoundaries(messages as readonly unknown[]), entries, skip);
}

/**
 * `resolveRanges` over messages already read. `notAStart(i)` is asked only of a user message whose
 * timestamp is some entry's start, and leaves it out of the count when true (the render's synthetics).
 */
export function resolveReadRanges(
  read: BoundaryReading,
  entries: readonly RangeBoundaries[],
  notAStart?: (i: number) => boolean,
): (ResolvedRange | null)[] {
  return resolveWith(rangeIndex(entries), read, notAStart);
}

/**
 * One set of entries made ready to resolve: their boundary timestamps sorted once, when it is built.
 * A state's chains change only with the state, so the render keeps one index per state version (in
 * its memo) and resolves every render against it. A plain record, like the tallies.
 */
export interface RangeIndex {
  readonly entries: readonly RangeBoundaries[];
  readonly starts: Float64Array;
  readonly ends: Float64Array;
}

export function rangeIndex(entries: readonly RangeBoundaries[]): RangeIndex {
  const closed = entries.filter(hasFinal);
  return {
    entries,
    starts: sortedDistinct(closed.map((e) => e.startUserTimestamp)),
    ends: sortedDistinct(closed.map((e) => e.finalAssistantTimestamp)),
  };
}

/** Every entry's range over `read`, in the entries' order (null = unresolved); see `resolveReadRanges`. */
export function resolveWith(
  index: RangeIndex,
  read: BoundaryReading,
  notAStart?: (i: number) => boolean,
): (ResolvedRange | null)[] {
  const { entries } = index;
  const starts = newTally(index.starts);
  const ends = newTally(index.ends);
  if (index.ends.length > 0) {
    const { roles, timestamps } = read;
    for (let i = 0; i < roles.length; i++) {
      const role = roles[i];
      if (role === Boundary.NONE) continue;
      if (role === Boundary.ASSISTANT) {
        const k = seek(ends, timestamps, i);
        if (k >= 0) meet(ends, k, i);
      } else {
        const k = seek(starts, timestamps, i);
        if (k >= 0 && !notAStart?.(i)) meet(starts, k, i);
      }
    }
  }
  const ranges: (ResolvedRange | null)[] = new Array(entries.length);
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e]!;
    const start = hasFinal(entry) ? onlyAt(starts, entry.startUserTimestamp) : -1;
    const end = hasFinal(entry) ? onlyAt(ends, entry.finalAssistantTimestamp) : -1;
    ranges[e] = start >= 0 && end >= 0 && start < end ? { startIndex: start, endIndex: end } : null;
  }
  return ranges;
}
