/**
 * What the agent's own usage reports teach about its cache: how often a request finds the prefix warm
 * (after a tool turn, where the next request follows at once, and after a text reply, where it waits
 * for the user), how many requests the session has made, how large its context is, and the prices
 * the host bills. Each assistant message's usage (pi's `AssistantMessage.usage`: input, cacheRead,
 * cacheWrite, output and their cost) is one observation. Immutable: `observeCall` returns a new value.
 */
import { DEFAULT_CACHE_PRICES, validPrices, type CachePrices } from "./cache-prices.ts";

export interface CallUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** When the request was made (ms); used for TTL expiry between requests. */
  timestamp?: number;
  /** The model that answered; a switch means the next request starts a cold cache. */
  model?: string;
  /** USD per category as the host billed it (pi-ai's `usage.cost`), from which prices are recovered. */
  cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
}

export interface CacheReuse {
  calls: number;
  /** Requests following a tool turn, and how many of them read the previous prefix from the cache. */
  toolFollowups: number;
  toolWarm: number;
  /** Requests following a text reply (a user's turn in between). */
  replyFollowups: number;
  replyWarm: number;
  /** Whether any request followed a text reply (the user came back: an interactive session), cacheable or not. */
  interactive: boolean;
  /** Context tokens of the last request (input + cache read + cache write) plus its output. */
  lastContextTokens: number;
  /** Moving average of how much the context grows from one request to the next (a turn's size). */
  growthPerCall: number;
  lastTimestamp: number | null;
  lastModel: string | null;
  /** Whether the host ever reported a cache read or write: false = a provider without prompt caching. */
  cachingSeen: boolean;
  /** Token and cost sums per category, for price recovery. */
  billed: { tokens: Record<PriceKey, number>; usd: Record<PriceKey, number> };
}

type PriceKey = "input" | "output" | "cacheRead" | "cacheWrite";
const KEYS: readonly PriceKey[] = ["input", "output", "cacheRead", "cacheWrite"];

export const emptyCacheReuse = (): CacheReuse => ({
  calls: 0,
  toolFollowups: 0,
  toolWarm: 0,
  replyFollowups: 0,
  replyWarm: 0,
  interactive: false,
  lastContextTokens: 0,
  growthPerCall: 0,
  lastTimestamp: null,
  lastModel: null,
  cachingSeen: false,
  billed: {
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    usd: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  },
});

/** Providers do not cache prefixes shorter than this (Anthropic: 1024 tokens for most models). */
export const MIN_CACHEABLE_TOKENS = 1024;

const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) && x > 0 ? x : 0);

/**
 * A request found the cache warm when it read anything from it: an expired cache reads nothing. A
 * flush landing reads only the prefix it kept, which is the flush's cost, not a cold cache (judging
 * by the share read would teach the policy that its own flushes are cache expiries).
 */
function wasWarm(u: CallUsage): boolean {
  return n(u.cacheRead) > 0;
}

/**
 * One request's usage. `afterReply` says whether the previous assistant message ended a reply (a
 * user turn came in between). A request on a context too small to cache teaches nothing about reuse.
 */
export function observeCall(prev: CacheReuse, u: CallUsage, afterReply: boolean): CacheReuse {
  const read = n(u.cacheRead);
  const write = n(u.cacheWrite);
  const context = n(u.input) + read + write + n(u.output);
  // A shrinking context is a flush or a compaction landing, not the session's pace.
  const growth = context - prev.lastContextTokens;
  const growthPerCall =
    prev.calls === 0 || growth < 0
      ? prev.growthPerCall
      : prev.calls === 1
        ? growth
        : 0.7 * prev.growthPerCall + 0.3 * growth;
  const next: CacheReuse = {
    ...prev,
    calls: prev.calls + 1,
    lastContextTokens: context,
    growthPerCall,
    lastTimestamp: typeof u.timestamp === "number" && Number.isFinite(u.timestamp) ? u.timestamp : prev.lastTimestamp,
    lastModel: typeof u.model === "string" && u.model ? u.model : prev.lastModel,
    cachingSeen: prev.cachingSeen || read > 0 || write > 0,
    interactive: prev.interactive || (afterReply && prev.calls > 0),
    billed: {
      tokens: { ...prev.billed.tokens },
      usd: { ...prev.billed.usd },
    },
  };
  for (const k of KEYS) {
    const t = n(u[k]);
    const c = n(u.cost?.[k]);
    if (t > 0 && c > 0) {
      next.billed.tokens[k] += t;
      next.billed.usd[k] += c;
    }
  }
  // The first request and a model switch start a cold cache by construction: not evidence of reuse.
  const switched = prev.lastModel !== null && next.lastModel !== null && prev.lastModel !== next.lastModel;
  if (prev.calls > 0 && !switched && prev.lastContextTokens >= MIN_CACHEABLE_TOKENS) {
    const warm = wasWarm(u) ? 1 : 0;
    if (afterReply) {
      next.replyFollowups++;
      next.replyWarm += warm;
    } else {
      next.toolFollowups++;
      next.toolWarm += warm;
    }
  }
  return next;
}

/**
 * Prices recovered from billed usage (USD per million tokens), category by category, falling back
 * to `fallback` where the host never billed one; a cache-write price stays 0 when the host reports
 * cache reads but never bills a write (implicit caching, where a miss costs input).
 */
export function observedPrices(r: CacheReuse, fallback: CachePrices = DEFAULT_CACHE_PRICES): CachePrices {
  const out: Record<PriceKey, number> = { ...fallback };
  for (const k of KEYS) {
    if (r.billed.tokens[k] > 0) out[k] = (r.billed.usd[k] / r.billed.tokens[k]) * 1e6;
  }
  if (r.billed.tokens.cacheRead > 0 && r.billed.tokens.cacheWrite === 0 && r.billed.tokens.input > 0)
    out.cacheWrite = 0;
  return validPrices(out) ?? { ...fallback };
}

/** Beta-prior means: a tool follow-up is warm 9 times in 10 until observed; a reply follow-up 1 in 2. */
const PRIOR = { tool: { warm: 9, cold: 1 }, reply: { warm: 1, cold: 1 } };

export interface ReuseForecast {
  /** Probability that the request after a tool turn reads the cache. */
  warmAfterTool: number;
  /** Probability that the request after a text reply reads the cache. */
  warmAfterReply: number;
  /** Share of requests that follow a text reply rather than a tool turn. */
  replyShare: number;
  /** Probability that a request some time from now reads the cache. */
  laterWarm: number;
  /** 1 - laterWarm: cold-cache moments per request. */
  coldRate: number;
}

export function forecastReuse(r: CacheReuse): ReuseForecast {
  const observed = r.toolFollowups + r.replyFollowups;
  // A host that has answered several cacheable requests without ever reading or writing a cache does
  // not cache: every request is "cold" and a flush never breaks anything.
  if (!r.cachingSeen && observed >= 3)
    return { warmAfterTool: 0, warmAfterReply: 0, replyShare: r.replyFollowups / observed, laterWarm: 0, coldRate: 1 };
  const warmAfterTool = (r.toolWarm + PRIOR.tool.warm) / (r.toolFollowups + PRIOR.tool.warm + PRIOR.tool.cold);
  const warmAfterReply = (r.replyWarm + PRIOR.reply.warm) / (r.replyFollowups + PRIOR.reply.warm + PRIOR.reply.cold);
  // Prior: one request in five follows a reply, once the session is interactive. Before, the session
  // is one task the agent runs (its horizon is that task's, expectedRemainingCalls) and no request
  // within it follows a reply: the user's turns, and the expiries they bring, are not expected.
  const replyShare = r.interactive ? (r.replyFollowups + 1) / (observed + 5) : 0;
  const laterWarm = warmAfterTool * (1 - replyShare) + warmAfterReply * replyShare;
  return { warmAfterTool, warmAfterReply, replyShare, laterWarm, coldRate: 1 - laterWarm };
}

/**
 * Requests the session is expected to make from here, at least `floor`. A scale-free ("Copernican")
 * prior puts the median remaining length at as many requests as were made. That is the horizon of an
 * interactive session (a request already followed a reply: the user came back after a task ended, and
 * a session that outlives its tasks is as likely to go on as it went). A session that has not yet
 * come back after a reply is one task run by the agent, and a task ends: there the saving of a flush
 * is linear in the count while a held flush is only postponed (the next opportunity comes a request
 * later), so erring short costs a request of saving and erring long a rewrite that never pays back;
 * the policy plans on half.
 */
export function expectedRemainingCalls(r: CacheReuse, floor = 4): number {
  return Math.max(floor, r.interactive ? r.calls : Math.floor(r.calls / 2));
}
