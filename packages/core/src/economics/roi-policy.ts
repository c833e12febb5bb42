/**
 * The `roi` flush policy's decision: from what the client knows at a flush opportunity (a tool turn
 * ended, a reply ended) and what usage taught it, estimate a flush's reclaim and rewrite and flush
 * when its net value is positive and no colder moment is expected soon enough to do better.
 * The budget ceiling and the manual command are decided elsewhere (triggers.ts) and always win.
 */
import { DEFAULT_CACHE_PRICES, type CachePrices } from "./cache-prices.ts";
import { expectedRemainingCalls, forecastReuse, observedPrices, type CacheReuse } from "./cache-reuse.ts";
import { flushValue, type FlushValue, type FlushValueInput } from "./flush-value.ts";

/** What the client accumulated about the work a flush would condense. */
export interface PendingWork {
  /** Tokens of the pending (captured, not yet flushed) tool results: what the summarizer reads. */
  resultTokens: number;
  /** Pending tool calls. */
  toolCalls: number;
  /** Context tokens in front of the first pending result: the part of the prefix a flush keeps. */
  firstResultAt: number;
}

/**
 * Share of the tail since the first pending result that a flush takes out of every later request
 * (stubbed results and compressed chains, net of the summaries added), until the client has measured
 * its own: each landed flush's measured reclaim over the tail it condensed updates it.
 */
export const DEFAULT_RECLAIM_SHARE = 0.5;
/**
 * A flush that reclaims less than this is not worth its summary: the summary's own fixed size and the
 * cache's granularity dwarf the estimate's precision there.
 */
export const MIN_RECLAIM_TOKENS = 256;
/** Share of the pending results' own tokens a flush reclaims at least (their stubs and summaries are small). */
export const RESULT_RECLAIM = 0.8;
/** Summarizer spend per summarized token of a model summarizer until the service reports its own (Haiku 4.5: $1 in, $5 out, ~15% out). */
export const DEFAULT_SUMMARIZER_USD_PER_TOKEN = 1.75e-6;

/**
 * What the client expects the summarizer to bill per summarized token before the service has
 * reported any bill, from the session's `summarizerModel` setting: `deterministic` makes no model
 * call; `default` is the worker's own model, whose default (CONDENSE_SUMMARIZER_MODEL) is the
 * deterministic summarizer too; a named model gets the model prior. A worker configured with a model
 * reports its bill with the first summaries (the session state's stats), which replaces the prior.
 */
export function summarizerPriorUsdPerToken(summarizerModel: string): number {
  return summarizerModel === "deterministic" || summarizerModel === "default" ? 0 : DEFAULT_SUMMARIZER_USD_PER_TOKEN;
}

/**
 * A chain the flush's request would have the chain stage compress (eligible, not yet compressed), as
 * the cost model sizes it: compressing it changes the context from the chain's start on, so the request
 * that first carries the compressed chain writes everything from there to the cache again.
 */
export interface ChainCandidate {
  /** Tokens of the next request's context from the chain's start user message to the end. */
  tailTokens: number;
  /** Tokens every later request no longer carries once the chain is compressed (its middle minus its body). */
  reclaimTokens: number;
}

export interface RoiInput {
  reuse: CacheReuse;
  pending: PendingWork;
  /** Chains the flush's request carries for compression (default none). */
  chains?: readonly ChainCandidate[];
  /** Context tokens of the next request without a flush. */
  contextTokens: number;
  at: "turn-end" | "message-end";
  /** The request that carries the flush is known to start cold (model switch, resume, host compaction). */
  coldNow: boolean;
  /** Prices to use; default: recovered from billed usage, else Sonnet 4.5 list prices. */
  prices?: CachePrices;
  /** Learned share of the tail a flush reclaims (see DEFAULT_RECLAIM_SHARE). */
  reclaimShare?: number;
  summarizerUsdPerToken?: number;
}

export interface RoiDecision {
  flush: boolean;
  value: FlushValue;
  inputs: FlushValueInput;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const nonNeg = (x: number) => (Number.isFinite(x) && x > 0 ? x : 0);

/**
 * Tokens of the next request's context from the first pending result to the end: the tail a flush of
 * the pending work condenses; 0 when nothing is pending (a flush then condenses only the chains it sends).
 */
export function pendingTailTokens(pending: PendingWork, contextTokens: number): number {
  if (nonNeg(pending.toolCalls) === 0) return 0;
  return nonNeg(nonNeg(contextTokens) - nonNeg(pending.firstResultAt));
}

/**
 * The reclaim and rewrite a flush of `pending` would bring on a context of `contextTokens`. The kept
 * prefix ends at the first pending result or at the start of the earliest chain the flush compresses,
 * whichever comes first; a chain that starts in front of the pending work adds its own reclaim (one
 * inside the pending tail is part of what the learned share measures already). With nothing pending
 * (a reply that closed a chain), the chains alone make the flush.
 */
export function estimateFlushEffect(
  pending: PendingWork,
  contextTokens: number,
  reclaimShare = DEFAULT_RECLAIM_SHARE,
  chains: readonly ChainCandidate[] = [],
): { reclaimTokens: number; rewriteTokens: number } {
  const context = nonNeg(contextTokens);
  const pendingTail = pendingTailTokens(pending, context);
  // The pending results themselves are mostly stubbed whatever share of the tail was learned (a
  // tail of small results and long replies teaches a low share): a floor under the learned share.
  const floor = pendingTail > 0 ? RESULT_RECLAIM * nonNeg(pending.resultTokens) : 0;
  let tail = pendingTail;
  let reclaimTokens = Math.min(pendingTail, Math.max(pendingTail * clamp01(reclaimShare), floor));
  for (const c of chains) {
    const chainTail = Math.min(context, nonNeg(c.tailTokens));
    if (chainTail <= pendingTail) continue;
    tail = Math.max(tail, chainTail);
    reclaimTokens += nonNeg(c.reclaimTokens);
  }
  reclaimTokens = Math.min(tail, reclaimTokens);
  return { reclaimTokens, rewriteTokens: tail - reclaimTokens };
}

export function decideRoi(input: RoiInput): RoiDecision {
  const prices = input.prices ?? observedPrices(input.reuse, DEFAULT_CACHE_PRICES);
  const forecast = forecastReuse(input.reuse);
  const effect = estimateFlushEffect(input.pending, input.contextTokens, input.reclaimShare, input.chains);
  const reclaimTokens = effect.reclaimTokens;
  // Inside the agent's loop the flush lands one request later: that request's turn is rewritten too.
  const rewriteTokens = effect.rewriteTokens + (input.at === "turn-end" ? input.reuse.growthPerCall : 0);
  const nextWarm = input.coldNow ? 0 : input.at === "message-end" ? forecast.warmAfterReply : forecast.warmAfterTool;
  const inputs: FlushValueInput = {
    prices,
    reclaimTokens,
    rewriteTokens,
    remainingCalls: expectedRemainingCalls(input.reuse),
    nextWarm,
    laterWarm: forecast.laterWarm,
    summarizerUsd:
      nonNeg(input.pending.resultTokens) * nonNeg(input.summarizerUsdPerToken ?? DEFAULT_SUMMARIZER_USD_PER_TOKEN),
    // Inside the loop, the colder moment to wait for is the next reply (the user's turn lets the
    // TTL run out); at a reply or a known cold request, this is that moment.
    callsToCold:
      input.at === "turn-end" && !input.coldNow && forecast.warmAfterReply < nextWarm && forecast.replyShare > 0
        ? 1 / forecast.replyShare
        : null,
    coldMomentWarm: forecast.warmAfterReply,
    growthPerCall: input.reuse.growthPerCall,
  };
  const value = flushValue(inputs);
  return { flush: reclaimTokens >= MIN_RECLAIM_TOKENS && value.best === "now", value, inputs };
}
