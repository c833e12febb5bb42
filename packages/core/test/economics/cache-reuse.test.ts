import { describe, expect, it } from "vitest";
import {
  emptyCacheReuse,
  expectedRemainingCalls,
  forecastReuse,
  observeCall,
  observedPrices,
  type CallUsage,
} from "../../src/economics/cache-reuse.ts";
import {
  DEFAULT_SUMMARIZER_USD_PER_TOKEN,
  decideRoi,
  MIN_RECLAIM_TOKENS,
  summarizerPriorUsdPerToken,
} from "../../src/economics/roi-policy.ts";

const call = (cacheRead: number, cacheWrite: number, extra: Partial<CallUsage> = {}): CallUsage => ({
  input: 0,
  cacheRead,
  cacheWrite,
  output: 100,
  ...extra,
});

function run(calls: Array<[CallUsage, boolean]>) {
  return calls.reduce((r, [u, afterReply]) => observeCall(r, u, afterReply), emptyCacheReuse());
}

describe("cache reuse learned from usage", () => {
  it("counts warm and cold follow-ups apart for tool turns and replies", () => {
    const r = run([
      [call(0, 5000), false],
      [call(5000, 800), false], // warm after a tool turn
      [call(0, 6000), true], // cold after the user's turn (TTL ran out)
      [call(6000, 500), false],
    ]);
    expect(r.calls).toBe(4);
    expect([r.toolFollowups, r.toolWarm, r.replyFollowups, r.replyWarm]).toEqual([2, 2, 1, 0]);
    const f = forecastReuse(r);
    expect(f.warmAfterTool).toBeGreaterThan(f.warmAfterReply);
  });

  it("a session no request of which followed a reply expects no reply (and no expiry it brings) within its task", () => {
    const agentOnly = run(Array.from({ length: 6 }, (_, i) => [call(2000 * i, 2000), false] as [CallUsage, boolean]));
    const f = forecastReuse(agentOnly);
    expect(f.replyShare).toBe(0);
    expect(f.laterWarm).toBe(f.warmAfterTool);
    // Once the user came back, replies are expected (prior: one request in five), and their colder caches.
    const interactive = run(
      Array.from({ length: 6 }, (_, i) => [call(2000 * i, 2000), i === 3] as [CallUsage, boolean]),
    );
    const g = forecastReuse(interactive);
    expect(g.replyShare).toBeCloseTo(2 / 10);
    expect(g.laterWarm).toBeLessThan(g.warmAfterTool);
  });

  it("a model switch is not evidence of reuse; the first request neither", () => {
    const r = run([
      [call(0, 5000, { model: "a" }), false],
      [call(0, 5100, { model: "b" }), false],
    ]);
    expect(r.toolFollowups).toBe(0);
  });

  it("a host that never caches is forecast cold, so a flush never breaks anything there", () => {
    const r = run(
      Array.from(
        { length: 5 },
        (_, i) => [{ input: 2000 * (i + 1), cacheRead: 0, cacheWrite: 0, output: 50 }, false] as [CallUsage, boolean],
      ),
    );
    const f = forecastReuse(r);
    expect(f.warmAfterTool).toBe(0);
    expect(f.laterWarm).toBe(0);
  });

  it("recovers prices from the billed cost (pi-ai usage.cost)", () => {
    const r = run([[call(1_000_000, 1_000_000, { cost: { cacheRead: 0.08, cacheWrite: 1.0 } }), false]]);
    const p = observedPrices(r);
    expect(p.cacheRead).toBeCloseTo(0.08);
    expect(p.cacheWrite).toBeCloseTo(1.0);
    expect(p.output).toBe(15);
  });

  it("tracks the context's growth per request, ignoring drops (a flush landing)", () => {
    const r = run([
      [call(0, 1000), false],
      [call(1000, 1000), false],
      [call(1000, 100), false],
    ]);
    expect(r.growthPerCall).toBe(1000);
    expect(expectedRemainingCalls(r)).toBe(4);
  });

  it("expects half as many requests again as were made while no request followed a reply, at least four", () => {
    const many = run(Array.from({ length: 30 }, (_, i) => [call(1000 * i, 1000), false] as [CallUsage, boolean]));
    expect(many.interactive).toBe(false);
    expect(expectedRemainingCalls(many)).toBe(15);
    expect(expectedRemainingCalls(run([[call(0, 1000), false]]))).toBe(4);
  });

  it("expects as many requests again as were made once a request followed a reply (an interactive session)", () => {
    const steps = Array.from({ length: 30 }, (_, i) => [call(1000 * i, 1000), i === 12] as [CallUsage, boolean]);
    const r = run(steps);
    expect(r.interactive).toBe(true);
    expect(expectedRemainingCalls(r)).toBe(30);
    // Before the user came back the same session planned on half.
    expect(expectedRemainingCalls(run(steps.slice(0, 12)))).toBe(6);
    // Even a reply on a context too small to cache shows the user came back (the flag is not a reuse observation).
    const tiny = run([
      [call(0, 10), false],
      [call(10, 10), true],
    ]);
    expect([tiny.interactive, tiny.replyFollowups]).toEqual([true, 0]);
    // The first request cannot follow a reply of this session.
    expect(run([[call(0, 1000), true]]).interactive).toBe(false);
  });

  it("a flush landing reads only the prefix it kept: warm, not an expired cache", () => {
    const r = run([
      [call(0, 20_000), false],
      [call(20_000, 1000), false],
      [call(2000, 9000), false], // the flush broke the prefix at 2 000 tokens: still a warm cache
      [call(0, 12_000), false], // nothing read: expired
    ]);
    expect([r.toolFollowups, r.toolWarm]).toEqual([3, 2]);
  });
});

describe("roi decision", () => {
  const warm = run(Array.from({ length: 40 }, (_, i) => [call(2000 * i, 2000), false] as [CallUsage, boolean]));
  const pending = { resultTokens: 30_000, toolCalls: 10, firstResultAt: 40_000 };

  it("expects a summarizer bill before any was reported only where the setting names a model", () => {
    expect(summarizerPriorUsdPerToken("deterministic")).toBe(0);
    // The worker's default model, whose own default is the deterministic summarizer.
    expect(summarizerPriorUsdPerToken("default")).toBe(0);
    expect(summarizerPriorUsdPerToken("anthropic/claude-haiku-4-5")).toBe(DEFAULT_SUMMARIZER_USD_PER_TOKEN);
    const at = (usd: number) =>
      decideRoi({
        reuse: warm,
        pending,
        contextTokens: 80_000,
        at: "turn-end",
        coldNow: false,
        summarizerUsdPerToken: usd,
      }).value.nowUsd;
    expect(at(0) - at(DEFAULT_SUMMARIZER_USD_PER_TOKEN)).toBeCloseTo(30_000 * DEFAULT_SUMMARIZER_USD_PER_TOKEN, 12);
  });

  it("flushes a large pending tail on a long warm session", () => {
    const d = decideRoi({
      reuse: warm,
      pending,
      contextTokens: 80_000,
      at: "turn-end",
      coldNow: false,
      summarizerUsdPerToken: 0,
    });
    // Half the 40 000-token tail, or 80 % of the 30 000 result tokens: the larger.
    expect(d.inputs.reclaimTokens).toBe(24_000);
    expect(d.flush).toBe(true);
  });

  it("the pending results are reclaimed at least at 80 % of their size, whatever share of the tail was learned", () => {
    const d = decideRoi({
      reuse: warm,
      pending,
      contextTokens: 80_000,
      at: "turn-end",
      coldNow: false,
      reclaimShare: 0.01,
      summarizerUsdPerToken: 0,
    });
    expect(d.inputs.reclaimTokens).toBe(24_000);
    // Never more than the tail itself.
    const small = decideRoi({
      reuse: warm,
      pending: { resultTokens: 30_000, toolCalls: 3, firstResultAt: 70_000 },
      contextTokens: 80_000,
      at: "turn-end",
      coldNow: false,
      summarizerUsdPerToken: 0,
    });
    expect(small.inputs.reclaimTokens).toBe(10_000);
  });

  it("a reclaim below MIN_RECLAIM_TOKENS never flushes, even on a cold cache (the summary is not worth it)", () => {
    const tiny = {
      reuse: warm,
      pending: { resultTokens: 40, toolCalls: 1, firstResultAt: 79_900 },
      contextTokens: 80_000,
      at: "message-end" as const,
      coldNow: true,
      summarizerUsdPerToken: 0,
    };
    const d = decideRoi(tiny);
    expect(d.inputs.reclaimTokens).toBeLessThan(MIN_RECLAIM_TOKENS);
    expect(d.value.nowUsd).toBeGreaterThan(0);
    expect(d.flush).toBe(false);
    expect(decideRoi({ ...tiny, pending: { resultTokens: 4000, toolCalls: 1, firstResultAt: 75_000 } }).flush).toBe(
      true,
    );
  });

  it("holds when the rewrite outweighs what the remaining calls save", () => {
    const young = run([
      [call(0, 2000), false],
      [call(2000, 2000), false],
    ]);
    const d = decideRoi({
      reuse: young,
      pending: { resultTokens: 1000, toolCalls: 1, firstResultAt: 1000 },
      contextTokens: 60_000,
      at: "turn-end",
      coldNow: false,
      reclaimShare: 0.05,
      summarizerUsdPerToken: 0,
    });
    expect(d.flush).toBe(false);
  });

  it("a known cold request makes the same flush pay", () => {
    const young = run([
      [call(0, 2000), false],
      [call(2000, 2000), false],
    ]);
    const args = {
      reuse: young,
      pending: { resultTokens: 1000, toolCalls: 1, firstResultAt: 1000 },
      contextTokens: 60_000,
      at: "turn-end" as const,
      reclaimShare: 0.05,
      summarizerUsdPerToken: 0,
    };
    expect(decideRoi({ ...args, coldNow: false }).flush).toBe(false);
    expect(decideRoi({ ...args, coldNow: true }).flush).toBe(true);
  });

  it("the summarizer's bill can make a flush not worth it", () => {
    const d = decideRoi({
      reuse: warm,
      pending,
      contextTokens: 80_000,
      at: "turn-end",
      coldNow: false,
      summarizerUsdPerToken: 1,
    });
    expect(d.flush).toBe(false);
  });

  it("nothing pending never flushes", () => {
    expect(
      decideRoi({
        reuse: warm,
        pending: { resultTokens: 0, toolCalls: 0, firstResultAt: 0 },
        contextTokens: 80_000,
        at: "message-end",
        coldNow: true,
      }).flush,
    ).toBe(false);
  });
});
