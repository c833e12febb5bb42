/**
 * The net value of applying a flush (docs/economics.md has the derivation). A flush replaces pending
 * tool results by stubs and appends their summaries: every later request is `reclaim` tokens smaller,
 * but the cached prefix breaks at the first stubbed result, so the request that first carries the
 * stubs writes everything after that point to the cache again (`rewrite` tokens). Whether that pays
 * depends on how many requests follow, on whether the cache would have been cold anyway, and on the
 * summarizer's bill. All money is USD; all sizes are tokens.
 */
import { hitPrice, missPrice, type CachePrices } from "./cache-prices.ts";

export interface FlushValueInput {
  prices: CachePrices;
  /** Tokens every later request no longer carries (stubbed results minus the summaries added). */
  reclaimTokens: number;
  /** Tokens after the first changed message of the first request that carries the flush, post-flush. */
  rewriteTokens: number;
  /** Requests expected after the one that first carries the flush. */
  remainingCalls: number;
  /** Probability that the next request finds the cache warm (0 = it will be cold anyway). */
  nextWarm: number;
  /** Probability that any later request finds the cache warm. */
  laterWarm: number;
  /** What summarizing the pending work costs. */
  summarizerUsd: number;
  /**
   * Expected requests until the next colder moment the policy can act on (a reply, after which the
   * user's turn lets the TTL run out; a model switch, resume or host compaction); null = none.
   */
  callsToCold: number | null;
  /** Probability that the cache is still warm at that moment (0 for a certain expiry). */
  coldMomentWarm?: number;
  /** Tokens the tail after the first pending result grows by per request meanwhile. */
  growthPerCall?: number;
}

export interface FlushValue {
  /** Net value of applying the flush at the next request. */
  nowUsd: number;
  /** Net value of holding it until the next cold-cache moment, or null when none is expected within the session. */
  atColdUsd: number | null;
  /** The choice that maximizes the net value; "hold" when neither is positive. */
  best: "now" | "at-cold" | "hold";
}

const perToken = (usdPerMillion: number) => usdPerMillion / 1e6;
const nonNeg = (x: number) => (Number.isFinite(x) && x > 0 ? x : 0);
const prob = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** What one reclaimed token saves on one request whose cache is warm with probability `warm`. */
export function savedPerToken(prices: CachePrices, warm: number): number {
  const w = prob(warm);
  return w * perToken(hitPrice(prices)) + (1 - w) * perToken(missPrice(prices));
}

/**
 * Value of applying now: the first request saves the reclaim but (when warm) pays the rewrite at the
 * write-minus-read premium; each later request saves the reclaim at its expected per-token price.
 */
export function flushNowUsd(i: FlushValueInput): number {
  const r = perToken(hitPrice(i.prices));
  const w = perToken(missPrice(i.prices));
  const h0 = prob(i.nextWarm);
  const R = nonNeg(i.reclaimTokens);
  const B = nonNeg(i.rewriteTokens);
  const first = h0 * (R * r - B * (w - r)) + (1 - h0) * R * w;
  return first + nonNeg(i.remainingCalls) * R * savedPerToken(i.prices, i.laterWarm) - nonNeg(i.summarizerUsd);
}

/**
 * Value of applying at the next cold moment, `k` requests from now: where the cache has expired
 * nothing is rewritten that the request would not write anyway, but the k requests before it still
 * carry the reclaim and the tail to rewrite (if still warm) has grown. Work captured meanwhile is not
 * credited (a conservative choice: waiting can only look worse than it is).
 */
export function flushAtColdUsd(i: FlushValueInput): number | null {
  if (i.callsToCold === null || !Number.isFinite(i.callsToCold)) return null;
  const k = nonNeg(i.callsToCold);
  if (k > nonNeg(i.remainingCalls)) return null;
  return flushNowUsd({
    ...i,
    nextWarm: i.coldMomentWarm ?? 0,
    rewriteTokens: nonNeg(i.rewriteTokens) + k * nonNeg(i.growthPerCall ?? 0),
    remainingCalls: nonNeg(i.remainingCalls) - k,
  });
}

/**
 * Value of applying `d` requests from now on a warm cache, when the tail after the first stubbed
 * result grows by `growthPerCall` tokens a request meanwhile: the rewrite grows and d requests of
 * saving are lost, so on a warm cache "later" is never better than "now" (kept for the docs and tests).
 */
export function flushLaterUsd(i: FlushValueInput, d: number, growthPerCall: number): number {
  const steps = nonNeg(d);
  return flushNowUsd({
    ...i,
    rewriteTokens: nonNeg(i.rewriteTokens) + steps * nonNeg(growthPerCall),
    remainingCalls: nonNeg(i.remainingCalls) - steps,
  });
}

export function flushValue(i: FlushValueInput): FlushValue {
  const nowUsd = flushNowUsd(i);
  const atColdUsd = flushAtColdUsd(i);
  let best: FlushValue["best"] = "hold";
  if (atColdUsd !== null && atColdUsd > nowUsd && atColdUsd > 0) best = "at-cold";
  else if (nowUsd > 0) best = "now";
  return { nowUsd, atColdUsd, best };
}
