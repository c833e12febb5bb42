/**
 * What a prompt-caching provider charges, in USD per million tokens, as pi-ai's model catalogue lists
 * it (`model.cost`), and how long its cache keeps a prefix. The cost model only ever needs these four
 * prices and the TTL; everything else about a provider is irrelevant to when a flush pays.
 */

export interface CachePrices {
  /** Uncached input (a provider without prompt caching bills every input token at this price). */
  input: number;
  output: number;
  cacheRead: number;
  /** 0 in the catalogue for providers that cache implicitly (OpenAI): writing then costs `input`. */
  cacheWrite: number;
}

/** Anthropic's default ephemeral cache lifetime; OpenAI's implicit cache lasts 5-10 minutes idle. */
export const DEFAULT_CACHE_TTL_MS = 300_000;

/**
 * Claude Sonnet 4.5 list prices: the prior until the agent's own usage reports its prices (pi's
 * `usage.cost` is computed from the model's catalogue entry, so the ratio cost/tokens recovers them).
 */
export const DEFAULT_CACHE_PRICES: Readonly<CachePrices> = Object.freeze({
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite: 3.75,
});

/** Price of a token that is not read from the cache: written to it, or plain input where nothing is written. */
export function missPrice(p: CachePrices): number {
  return p.cacheWrite > 0 ? p.cacheWrite : p.input;
}

/** A price of a token that is read from the cache; a provider without caching reads nothing cheaper. */
export function hitPrice(p: CachePrices): number {
  return p.cacheRead > 0 ? p.cacheRead : missPrice(p);
}

const ok = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x) && x >= 0;

/** The prices, or null when any is missing, negative or not a number. */
export function validPrices(p: unknown): CachePrices | null {
  if (!p || typeof p !== "object") return null;
  const o = p as Record<string, unknown>;
  if (!ok(o.input) || !ok(o.output) || !ok(o.cacheRead) || !ok(o.cacheWrite)) return null;
  return { input: o.input, output: o.output, cacheRead: o.cacheRead, cacheWrite: o.cacheWrite };
}
