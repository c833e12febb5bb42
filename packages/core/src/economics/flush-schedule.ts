/**
 * The offline oracle: the cheapest flush schedule for a recorded session under the cache cost model,
 * given the same summaries (each turn's condensed size is fixed; only when it lands is chosen).
 *
 * The session is K requests. Request c sends `rawTotal[c]` tokens without Condense; turn c (the
 * answer to request c and what follows it until request c+1) adds `raw[c]` tokens, or `cond[c]` once
 * condensed. A flush at the end of turn q condenses every turn up to q and lands at request
 * `q + 1 + lag[q]` (lag 1 inside the agent's loop, 0 after a reply). The request it lands on breaks
 * the prefix at the first turn it condenses and writes from there; every other request reads the
 * previous request's context and writes its new tail, unless `cold[c]` (TTL expired): then it writes
 * everything. Because the cost of the requests between two landings depends only on the last two
 * flushes, the optimum is an exact dynamic program over (previous flush, flush), O(K^2); a brute
 * force over all 2^K schedules agrees with it on small sessions (property test).
 */
import { missPrice, type CachePrices } from "./cache-prices.ts";

export interface ScheduleSession {
  /** Tokens sent by request c (0-based), without any flush. */
  rawTotal: readonly number[];
  /** Tokens turn c adds raw, and condensed (summaries included). */
  raw: readonly number[];
  cond: readonly number[];
  /** 1 when turn c ends inside the agent's loop (its flush lands a request later), 0 after a reply. */
  lag: readonly number[];
  /** Request c finds the cache expired. */
  cold: readonly boolean[];
  /** Output tokens of request c (billed the same under any schedule). */
  output: readonly number[];
  /** Summarizer USD for condensing turn c. */
  summarizerUsd?: readonly number[];
}

export interface ScheduleCost {
  costUsd: number;
  flushes: number[];
  cacheWriteTokens: number;
  cacheReadTokens: number;
}

const landOf = (s: ScheduleSession, q: number) => q + 1 + (s.lag[q] ?? 0);

/** The flushes of `schedule` that can happen: in order, each landing after the previous one and before the end. */
export function feasibleSchedule(s: ScheduleSession, schedule: readonly number[]): number[] {
  const K = s.rawTotal.length;
  const out: number[] = [];
  let lastLand = 0;
  let lastTurn = -1;
  for (const q of [...new Set(schedule)].sort((a, b) => a - b)) {
    const land = landOf(s, q);
    if (q <= lastTurn || land <= lastLand || land >= K || q < 0) continue;
    out.push(q);
    lastLand = land;
    lastTurn = q;
  }
  return out;
}

/** Cost of one flush schedule (turn indexes whose end flushes), simulated request by request. */
export function scheduleCost(s: ScheduleSession, prices: CachePrices, schedule: readonly number[]): ScheduleCost {
  const K = s.rawTotal.length;
  const r = prices.cacheRead / 1e6;
  const w = missPrice(prices) / 1e6;
  const flushes = feasibleSchedule(s, schedule);
  const landing = new Map(flushes.map((q) => [landOf(s, q), q]));
  let upTo = -1;
  let delta = 0;
  let cost = 0;
  let reads = 0;
  let writes = 0;
  for (let c = 0; c < K; c++) {
    const prevDelta = delta;
    let read = c === 0 ? 0 : s.rawTotal[c - 1]! - prevDelta;
    const q = landing.get(c);
    if (q !== undefined) {
      // The prefix breaks where the first turn this flush condenses starts.
      read = Math.min(read, s.rawTotal[upTo + 1]! - prevDelta);
      for (let t = upTo + 1; t <= q; t++) {
        delta += s.raw[t]! - s.cond[t]!;
        cost += s.summarizerUsd?.[t] ?? 0;
      }
      upTo = q;
    }
    if (s.cold[c]) read = 0;
    const ctx = s.rawTotal[c]! - delta;
    reads += read;
    writes += ctx - read;
    cost += read * r + (ctx - read) * w + (s.output[c] ?? 0) * (prices.output / 1e6);
  }
  return { costUsd: cost, flushes, cacheWriteTokens: writes, cacheReadTokens: reads };
}

/** The cheapest schedule, exactly, by dynamic programming over (previous flush, flush). */
export function optimalSchedule(s: ScheduleSession, prices: CachePrices): ScheduleCost {
  const K = s.rawTotal.length;
  if (K === 0) return { costUsd: 0, flushes: [], cacheWriteTokens: 0, cacheReadTokens: 0 };
  const r = prices.cacheRead / 1e6;
  const w = missPrice(prices) / 1e6;
  // D[q + 1] = tokens reclaimed once turns 0..q are condensed; S[q + 1] = their summarizer bill.
  const D = [0];
  const S = [0];
  for (let t = 0; t < K; t++) {
    D.push(D[t]! + (s.raw[t] ?? 0) - (s.cond[t] ?? 0));
    S.push(S[t]! + (s.summarizerUsd?.[t] ?? 0));
  }
  // Prefix sums over requests of the raw cost of a non-landing request, and of warm/cold counts.
  const base = [0];
  const warmN = [0];
  const coldN = [0];
  for (let c = 0; c < K; c++) {
    const cold = c === 0 || s.cold[c]!;
    const b = cold ? w * s.rawTotal[c]! : r * s.rawTotal[c - 1]! + w * (s.rawTotal[c]! - s.rawTotal[c - 1]!);
    base.push(base[c]! + b);
    warmN.push(warmN[c]! + (cold ? 0 : 1));
    coldN.push(coldN[c]! + (cold ? 1 : 0));
  }
  const Dq = (q: number) => D[q + 1]!;
  /** Requests a..b-1 (none landing) with turns 0..q condensed. */
  const rest = (q: number, a: number, b: number) =>
    b <= a ? 0 : base[b]! - base[a]! - Dq(q) * (r * (warmN[b]! - warmN[a]!) + w * (coldN[b]! - coldN[a]!));
  /** The landing request of flush q after flush p. */
  const first = (p: number, q: number) => {
    const c = landOf(s, q);
    const ctx = s.rawTotal[c]! - Dq(q);
    const read = s.cold[c] ? 0 : Math.min(s.rawTotal[c - 1]! - Dq(p), s.rawTotal[p + 1]! - Dq(p));
    return r * read + w * (ctx - read) + (S[q + 1]! - S[p + 1]!);
  };
  const candidates: number[] = [];
  for (let q = 0; q < K; q++) if (landOf(s, q) < K) candidates.push(q);
  // H[q] = cheapest cost of the requests after flush q lands (its landing request excluded), over all continuations.
  const H = new Map<number, number>();
  const next = new Map<number, number | null>();
  const solve = (q: number, landQ: number) => {
    let best = rest(q, landQ + 1, K);
    let arg: number | null = null;
    for (const n of candidates) {
      if (n <= q) continue;
      const landN = landOf(s, n);
      if (landN <= landQ) continue;
      const v = rest(q, landQ + 1, landN) + first(q, n) + H.get(n)!;
      if (v < best) {
        best = v;
        arg = n;
      }
    }
    return { best, arg };
  };
  for (let i = candidates.length - 1; i >= 0; i--) {
    const q = candidates[i]!;
    const { best, arg } = solve(q, landOf(s, q));
    H.set(q, best);
    next.set(q, arg);
  }
  // The start: request 0 writes everything; "flush -1" has condensed nothing and lands at request 0.
  const start = solve(-1, 0);
  const flushes: number[] = [];
  for (let q = start.arg; q !== null; q = next.get(q) ?? null) flushes.push(q);
  // Re-simulate for the token tallies (and as a cross-check of the recurrence).
  return scheduleCost(s, prices, flushes);
}
