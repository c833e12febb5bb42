import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_PRICES, missPrice, type CachePrices } from "../../src/economics/cache-prices.ts";
import {
  flushAtColdUsd,
  flushLaterUsd,
  flushNowUsd,
  flushValue,
  savedPerToken,
  type FlushValueInput,
} from "../../src/economics/flush-value.ts";

const SONNET = DEFAULT_CACHE_PRICES;
const base: FlushValueInput = {
  prices: SONNET,
  reclaimTokens: 10_000,
  rewriteTokens: 20_000,
  remainingCalls: 50,
  nextWarm: 1,
  laterWarm: 1,
  summarizerUsd: 0,
  callsToCold: null,
};

describe("flush value (docs/economics.md)", () => {
  it("on a warm cache: (N+1)·R·read − B·(write − read) − summarizer", () => {
    // 51 · 10k · $0.30/M − 20k · $3.45/M = 0.153 − 0.069
    expect(flushNowUsd(base)).toBeCloseTo(0.153 - 0.069, 10);
    expect(flushNowUsd({ ...base, summarizerUsd: 0.1 })).toBeCloseTo(0.153 - 0.069 - 0.1, 10);
  });

  it("does not pay with too few calls left to amortize the rewrite", () => {
    const v = flushValue({ ...base, remainingCalls: 5 });
    expect(v.nowUsd).toBeLessThan(0);
    expect(v.best).toBe("hold");
  });

  it("on a cold request nothing is rewritten that would not be written anyway", () => {
    const cold = flushNowUsd({ ...base, nextWarm: 0 });
    expect(cold).toBeCloseTo(10_000 * 3.75e-6 + 50 * 10_000 * 0.3e-6, 10);
    expect(cold).toBeGreaterThan(flushNowUsd(base));
  });

  it("waits for a cold moment that comes soon enough, and not for one past the session's end", () => {
    const soon = flushValue({ ...base, callsToCold: 2 });
    expect(soon.atColdUsd).not.toBeNull();
    expect(soon.best).toBe("at-cold");
    expect(flushAtColdUsd({ ...base, callsToCold: 60 })).toBeNull();
    expect(flushValue({ ...base, callsToCold: 45 }).best).toBe("now");
  });

  it("a provider without caching (reads cost input) saves input on every call and never pays a premium", () => {
    const noCache: CachePrices = { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 };
    expect(missPrice(noCache)).toBe(3);
    expect(savedPerToken(noCache, 1)).toBeCloseTo(3e-6, 12);
    expect(flushNowUsd({ ...base, prices: noCache })).toBeCloseTo(51 * 10_000 * 3e-6, 10);
  });

  it("implicit caching (cacheWrite 0): a miss costs input, the premium is input − read", () => {
    const openai: CachePrices = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };
    expect(flushNowUsd({ ...base, prices: openai })).toBeCloseTo(51 * 10_000 * 0.125e-6 - 20_000 * 1.125e-6, 10);
  });
});

const prices = fc.record({
  input: fc.double({ min: 0.1, max: 20, noNaN: true }),
  output: fc.double({ min: 0.1, max: 80, noNaN: true }),
  cacheRead: fc.double({ min: 0.01, max: 2, noNaN: true }),
  cacheWrite: fc.double({ min: 2, max: 30, noNaN: true }),
});
const input = fc.record({
  prices,
  reclaimTokens: fc.integer({ min: 0, max: 200_000 }),
  rewriteTokens: fc.integer({ min: 0, max: 200_000 }),
  remainingCalls: fc.integer({ min: 0, max: 1000 }),
  nextWarm: fc.double({ min: 0, max: 1, noNaN: true }),
  laterWarm: fc.double({ min: 0, max: 1, noNaN: true }),
  summarizerUsd: fc.double({ min: 0, max: 1, noNaN: true }),
  callsToCold: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
});

describe("flush value properties", () => {
  it("more calls left, more reclaim or less rewrite never lower the value of flushing now", () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 10_000 }), (i, d) => {
        const v = flushNowUsd(i);
        expect(flushNowUsd({ ...i, remainingCalls: i.remainingCalls + d })).toBeGreaterThanOrEqual(v - 1e-12);
        expect(flushNowUsd({ ...i, reclaimTokens: i.reclaimTokens + d })).toBeGreaterThanOrEqual(v - 1e-12);
        expect(flushNowUsd({ ...i, rewriteTokens: i.rewriteTokens + d })).toBeLessThanOrEqual(v + 1e-12);
      }),
    );
  });

  it("a colder next request never lowers the value (write >= read)", () => {
    fc.assert(
      fc.property(input, (i) => {
        expect(flushNowUsd({ ...i, nextWarm: 0 })).toBeGreaterThanOrEqual(flushNowUsd(i) - 1e-12);
      }),
    );
  });

  it("on a warm cache, flushing later is never worth more than flushing now", () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5000 }), (i, d, g) => {
        const warm = { ...i, nextWarm: 1 };
        expect(flushLaterUsd(warm, d, g)).toBeLessThanOrEqual(flushNowUsd(warm) + 1e-12);
      }),
    );
  });

  it("the choice is the best of now, at-cold and not flushing", () => {
    fc.assert(
      fc.property(input, (i) => {
        const v = flushValue(i);
        const best = Math.max(0, v.nowUsd, v.atColdUsd ?? Number.NEGATIVE_INFINITY);
        const chosen = v.best === "now" ? v.nowUsd : v.best === "at-cold" ? v.atColdUsd! : 0;
        expect(chosen).toBeCloseTo(best, 12);
      }),
    );
  });

  it("nothing to reclaim never pays", () => {
    fc.assert(
      fc.property(input, (i) => {
        expect(flushValue({ ...i, reclaimTokens: 0 }).best).toBe("hold");
      }),
    );
  });
});
