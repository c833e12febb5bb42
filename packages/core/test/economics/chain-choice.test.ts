import { describe, expect, it } from "vitest";
import { warmReuse } from "../support/warm-reuse.ts";
import { chooseFlushChains } from "../../src/economics/chain-choice.ts";
import { estimateFlushEffect, type RoiInput } from "../../src/economics/roi-policy.ts";

const warm = warmReuse();
// The sample's shape: a 9 000-token context whose pending work starts 1 000 tokens from the end.
const base: Omit<RoiInput, "chains"> = {
  reuse: warm,
  pending: { resultTokens: 800, toolCalls: 2, firstResultAt: 8_000 },
  contextTokens: 9_000,
  at: "message-end",
  coldNow: false,
  summarizerUsdPerToken: 0,
};
// The session's first chain, starting ~350 tokens into the context, taking 300 tokens out.
const farBack = { tailTokens: 8_650, reclaimTokens: 300 };
// A chain just in front of the pending work that takes most of its span out.
const near = { tailTokens: 3_000, reclaimTokens: 1_500 };

describe("the chain stage's rewrite in the cost model", () => {
  it("the kept prefix ends at the earliest chain's start; its reclaim counts", () => {
    const alone = estimateFlushEffect(base.pending, base.contextTokens, 0.5);
    expect(alone.reclaimTokens + alone.rewriteTokens).toBe(1_000);
    const withChain = estimateFlushEffect(base.pending, base.contextTokens, 0.5, [farBack]);
    expect(withChain.reclaimTokens + withChain.rewriteTokens).toBe(8_650);
    expect(withChain.reclaimTokens).toBe(alone.reclaimTokens + 300);
    // A chain inside the pending tail moves nothing: the learned share covers it.
    const inside = estimateFlushEffect(base.pending, base.contextTokens, 0.5, [
      { tailTokens: 600, reclaimTokens: 400 },
    ]);
    expect(inside).toEqual(alone);
  });
});

describe("which chains a roi flush carries", () => {
  it("holds back a chain far back whose reclaim does not repay its rewrite", () => {
    const c = chooseFlushChains(base, [farBack]);
    expect(c.send).toEqual([false]);
    expect(c.decision.inputs.rewriteTokens + c.decision.inputs.reclaimTokens).toBe(1_000);
  });

  it("sends a chain whose reclaim over the remaining calls repays its rewrite", () => {
    const c = chooseFlushChains(base, [near]);
    expect(c.send).toEqual([true]);
    expect(c.decision.value.nowUsd).toBeGreaterThan(chooseFlushChains(base, []).decision.value.nowUsd);
  });

  it("sends the chains that pay and holds the others in one flush", () => {
    const c = chooseFlushChains(base, [farBack, near, { tailTokens: 500, reclaimTokens: 100 }]);
    expect(c.send).toEqual([false, true, true]);
  });

  it("sends a chain far back at a cold-cache moment, when its rewrite costs nothing extra", () => {
    expect(chooseFlushChains({ ...base, coldNow: true }, [farBack]).send).toEqual([true]);
  });

  it("a far chain that takes out enough pays on a warm cache too", () => {
    expect(chooseFlushChains(base, [{ tailTokens: 8_650, reclaimTokens: 6_000 }]).send).toEqual([true]);
  });
});

describe("a flush that pays only through its chains (nothing pending)", () => {
  const idle: Omit<RoiInput, "chains"> = { ...base, pending: { resultTokens: 0, toolCalls: 0, firstResultAt: 0 } };

  it("with nothing pending and no chain, a flush changes nothing", () => {
    expect(estimateFlushEffect(idle.pending, idle.contextTokens, 0.5)).toEqual({ reclaimTokens: 0, rewriteTokens: 0 });
    expect(chooseFlushChains(idle, []).decision.flush).toBe(false);
  });

  it("a chain alone is sized from its start: its reclaim, and the rest of its tail rewritten", () => {
    expect(estimateFlushEffect(idle.pending, idle.contextTokens, 0.5, [near])).toEqual({
      reclaimTokens: 1_500,
      rewriteTokens: 1_500,
    });
  });

  it("is asked for when a chain repays its rewrite, and never when none does", () => {
    const pays = chooseFlushChains(idle, [near]);
    expect(pays.send).toEqual([true]);
    expect(pays.decision.flush).toBe(true);
    expect(pays.decision.value.nowUsd).toBeGreaterThan(0);
    const loses = chooseFlushChains(idle, [farBack]);
    expect(loses.send).toEqual([false]);
    expect(loses.decision.flush).toBe(false);
  });

  it("at a known cold moment a chain far back pays", () => {
    const c = chooseFlushChains({ ...idle, coldNow: true }, [farBack]);
    expect(c.send).toEqual([true]);
    expect(c.decision.flush).toBe(true);
  });

  it("a chain whose reclaim is below the minimum is not worth a flush", () => {
    const c = chooseFlushChains({ ...idle, coldNow: true }, [{ tailTokens: 2_000, reclaimTokens: 200 }]);
    expect(c.decision.value.nowUsd).toBeGreaterThan(0);
    expect(c.decision.flush).toBe(false);
  });
});
