import { describe, expect, it } from "vitest";
import { costSinceLoad, emptyStats } from "../src/index.ts";

describe("cost:external payload (CAP-SUM-14)", () => {
  it("AS-61: a stats snapshot from a prior process is the baseline; payloads report only spend made after the load", () => {
    const prior = {
      ...emptyStats(),
      totalCost: 1.25,
      totalInputTokens: 40_000,
      totalOutputTokens: 3_000,
      callCount: 12,
    };
    expect(costSinceLoad(prior, prior)).toEqual({ source: "condense", totalCost: 0, inputTokens: 0, outputTokens: 0 });
    const later = { ...prior, totalCost: 1.5, totalInputTokens: 46_000, totalOutputTokens: 3_400, callCount: 14 };
    const p = costSinceLoad(later, prior);
    expect(p.inputTokens).toBe(6_000);
    expect(p.outputTokens).toBe(400);
    expect(p.totalCost).toBeCloseTo(0.25, 10);
    expect(costSinceLoad(later, null)).toEqual({ source: "condense", totalCost: 0, inputTokens: 0, outputTokens: 0 });
  });
});
