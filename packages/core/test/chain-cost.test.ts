import { describe, expect, it } from "vitest";
import { chainCandidates } from "../src/chain-cost.ts";
import { detectChains } from "../src/chain-detect.ts";
import { selectEligibleChains } from "../src/chain-plan.ts";
import { DEFAULT_SETTINGS } from "../src/settings.ts";
import { createState } from "../src/state.ts";
import { A, F, R, U } from "@condense/test-support/messages";

const S = DEFAULT_SETTINGS;
const big = "x".repeat(4_000);
const chainOf = (start: number, ...ids: string[]) => [
  U(start),
  ...ids.flatMap((id, i) => [A(start + 10 + i * 10, id), R(start + 15 + i * 10, id, big)]),
  F(start + 90),
];

describe("sizing the chains a flush could compress (cost model input)", () => {
  // Five closed chains, the newest three in the rolling window: the first two are eligible.
  const branch = [
    ...chainOf(100, "a1", "a2"),
    ...chainOf(200, "b1"),
    ...chainOf(300, "c1"),
    ...chainOf(400, "d1"),
    ...chainOf(500, "e1"),
  ];
  const state = createState();
  const eligible = selectEligibleChains(detectChains(branch, S), state, { rollingWindow: 3, graceKeys: new Set() });

  it("measures each chain's tail from its start and its reclaim from what it drops", () => {
    expect(eligible.map((c) => c.startUserTimestamp)).toEqual([100, 200]);
    const [first, second] = chainCandidates(branch, eligible, state, S);
    const whole = Math.round(JSON.stringify(branch).length / 4);
    // The first chain starts at the first message: its tail is (about) the whole context.
    expect(first!.tailTokens).toBeGreaterThan(whole * 0.95);
    expect(second!.tailTokens).toBeLessThan(first!.tailTokens);
    // Two 1 000-token results against one: the body that replaces them is small.
    expect(first!.reclaimTokens).toBeGreaterThan(1_800);
    expect(first!.reclaimTokens).toBeLessThan(2_100);
    expect(second!.reclaimTokens).toBeGreaterThan(800);
    expect(second!.reclaimTokens).toBeLessThan(first!.reclaimTokens);
  });

  it("nothing eligible, nothing sized", () => {
    expect(chainCandidates(branch, [], state, S)).toEqual([]);
  });
});
