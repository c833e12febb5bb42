/**
 * The one chain-range resolver (CAP-RENDER-9), used by the render's chain-range prune and by chain
 * planning's record extraction. Fail closed: an entry resolves only when its start user message and
 * its final assistant each occur exactly once, the start first; an interrupted chain, a missing or
 * repeated boundary, or boundaries out of order resolve to null, and nothing is dropped. Role-gated:
 * a tool result sharing the millisecond never counts.
 */
import type { AgentMessage } from "./messages.ts";
import { isChainSynthetic } from "./render/message-shape.ts";
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

/**
 * Boundary timestamps of one kind (starts or ends), sorted, with where and how often each was met.
 * Searched by bisection: a message timestamp is compared in place, with no map key built from it.
 */
class Boundaries {
  readonly ts: Float64Array;
  readonly at: Int32Array;
  readonly count: Int32Array;
  constructor(timestamps: readonly number[]) {
    this.ts = Float64Array.from(new Set(timestamps)).sort();
    this.at = new Int32Array(this.ts.length).fill(-1);
    this.count = new Int32Array(this.ts.length);
  }
  /** The slot of `t`, or -1 when no entry has it as this kind of boundary. */
  slot(t: number): number {
    const ts = this.ts;
    let lo = 0;
    let hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ts[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo < ts.length && ts[lo] === t ? lo : -1;
  }
  meet(t: number, i: number): void {
    const k = this.slot(t);
    if (k < 0) return;
    this.at[k] = i;
    this.count[k]!++;
  }
  /** The one position `t` was met at, or -1 when it was met never or more than once. */
  only(t: number): number {
    const k = this.slot(t);
    return k >= 0 && this.count[k] === 1 ? this.at[k]! : -1;
  }
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
  const closed = entries.filter(hasFinal);
  const starts = new Boundaries(closed.map((e) => e.startUserTimestamp));
  const ends = new Boundaries(closed.map((e) => e.finalAssistantTimestamp));
  if (closed.length > 0) {
    const { roles, timestamps } = read;
    for (let i = 0; i < roles.length; i++) {
      const role = roles[i];
      if (role === Boundary.ASSISTANT) ends.meet(timestamps[i]!, i);
      else if (role === Boundary.USER) {
        const ts = timestamps[i]!;
        if (!(notAStart && starts.slot(ts) >= 0 && notAStart(i))) starts.meet(ts, i);
      }
    }
  }
  return entries.map((e) => {
    if (!hasFinal(e)) return null;
    const start = starts.only(e.startUserTimestamp);
    const end = ends.only(e.finalAssistantTimestamp);
    return start >= 0 && end >= 0 && start < end ? { startIndex: start, endIndex: end } : null;
  });
}
