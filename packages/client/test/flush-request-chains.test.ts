import {
  createState,
  emptyCacheReuse,
  normalizeSettings,
  observeCall,
  type AgentMessage,
  type RoiInput,
} from "@condense/core";
import { A, F, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { flushChains } from "../src/chain-candidates.ts";
import { buildFlushRequest } from "../src/flush-request.ts";

const chainOf = (start: number, size: number, id: string) => [
  U(start),
  A(start + 10, id),
  R(start + 15, id, "x".repeat(size)),
  F(start + 90),
];

// A small first chain far back, a long exchange without tools (nothing to reclaim), a large chain,
// then three small ones (the rolling window) and the pending work.
const talk = (ts: number): AgentMessage[] => [
  { role: "user", content: [{ type: "text", text: "z".repeat(20_000) }], timestamp: ts },
  F(ts + 5),
];
const branch = [
  ...chainOf(100, 400, "a1"),
  ...talk(150),
  ...chainOf(200, 20_000, "b1"),
  ...chainOf(300, 400, "c1"),
  ...chainOf(400, 400, "d1"),
  ...chainOf(500, 400, "e1"),
  U(600),
  A(610, "p1"),
  R(615, "p1", "y".repeat(4_000)),
];
const settings = normalizeSettings({});
const reuse = Array.from({ length: 30 }, (_, i) => ({
  input: 0,
  cacheRead: 700 * i,
  cacheWrite: 700,
  output: 100,
})).reduce((r, u) => observeCall(r, u, false), emptyCacheReuse());
const context = Math.round(JSON.stringify(branch).length / 4);
const roi: Omit<RoiInput, "chains"> = {
  reuse,
  pending: { resultTokens: 1_000, toolCalls: 1, firstResultAt: context - 1_030 },
  contextTokens: context,
  at: "turn-end",
  coldNow: false,
  summarizerUsdPerToken: 0,
};
const starts = (b: ReturnType<typeof buildFlushRequest>) => b.body.chains.map((c) => c.startUserTimestamp);

describe("the chains a flush request carries", () => {
  it("a roi flush holds back the eligible chain far back that does not repay its rewrite, keeps the one that does", () => {
    const built = buildFlushRequest({ trigger: "roi", branch, roi }, createState(), settings);
    // a1 (tiny, 5 000 unreclaimable tokens further back) is held; b1 (5 000 tokens) pays; c1..e1 are the window
    // (150, the exchange without tools, is no candidate: it stays in the list as it is).
    expect(starts(built)).toEqual([150, 200, 300, 400, 500]);
    expect(built.roi).not.toBeNull();
  });

  it("at a cold-cache moment the roi flush sends it", () => {
    const built = buildFlushRequest(
      { trigger: "roi", branch, roi: { ...roi, coldNow: true } },
      createState(),
      settings,
    );
    expect(starts(built)).toEqual([100, 150, 200, 300, 400, 500]);
  });

  it("the manual command and the budget ceiling send every chain", () => {
    for (const trigger of ["manual", "budget"] as const)
      expect(starts(buildFlushRequest({ trigger, branch }, createState(), settings))).toEqual([
        100, 150, 200, 300, 400, 500,
      ]);
  });
});

describe("the chains are detected and sized once per flush (chain-candidates.ts)", () => {
  const state = createState();

  it("flushChains gives what the request's build computes: the same chains, grace and sizes", () => {
    const sized = flushChains(branch, undefined, state, settings, true);
    expect(sized.eligible.map((c) => c.startUserTimestamp)).toEqual([100, 200]);
    expect(sized.candidates).toHaveLength(2);
    expect(sized.eligible.every((c) => sized.detected.includes(c))).toBe(true);
    const handed = buildFlushRequest({ trigger: "roi", branch, roi, chains: sized }, state, settings);
    expect(handed).toEqual(buildFlushRequest({ trigger: "roi", branch, roi }, state, settings));
    // Without sizing (the budget ceiling, the manual command) nothing is sized.
    const plain = flushChains(branch, undefined, state, settings, false);
    expect(plain.candidates).toEqual([]);
    expect(plain.detected).toEqual(sized.detected);
  });

  it("the build uses the chains it is handed when they were computed from its own inputs", () => {
    const sized = flushChains(branch, undefined, state, settings, true);
    // Sizes that make the far-back chain pay (a huge reclaim): the build's choice follows them, so it used them.
    const rigged = { ...sized, candidates: sized.candidates.map((c) => ({ ...c, reclaimTokens: 1_000_000 })) };
    expect(starts(buildFlushRequest({ trigger: "roi", branch, roi, chains: rigged }, state, settings))).toEqual([
      100, 150, 200, 300, 400, 500,
    ]);
    // Computed from another state (or branch, reply, settings): the build sizes the chains itself.
    const other = { ...rigged, state: createState() };
    expect(starts(buildFlushRequest({ trigger: "roi", branch, roi, chains: other }, state, settings))).toEqual([
      150, 200, 300, 400, 500,
    ]);
    const otherBranch = { ...rigged, branch: [...branch] };
    expect(starts(buildFlushRequest({ trigger: "roi", branch, roi, chains: otherBranch }, state, settings))).toEqual([
      150, 200, 300, 400, 500,
    ]);
  });
});
