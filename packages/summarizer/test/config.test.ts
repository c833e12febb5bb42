/** Config parsing and model resolution are code: defaults, validation, the provider/model split. */
import { describe, expect, it } from "vitest";
import { parseSummarizerConfig } from "../src/config.ts";
import { isNoModel, resolveModel, splitModelRef } from "../src/model-resolve.ts";
import { createSummarizer } from "../src/summarizer.ts";
import { startFakeProvider } from "@condense/test-support/fake-provider";
import { GOOD_SUMMARY, fakeModel, fastConfig, sampleBatch } from "./support/fixtures.ts";

describe("summarizer config", () => {
  it("defaults: no model, 20 s idle, 180 s ceiling, 10 min cooldown", () => {
    expect(parseSummarizerConfig({})).toMatchObject({
      summarizerModel: "default",
      summarizerFallbackModel: null,
      summarizerThinking: "default",
      summarizerIdleTimeoutMs: 20_000,
      summarizerMaxTimeoutMs: 180_000,
      breakerCooldownMs: 600_000,
    });
  });
  it("rejects an unknown thinking level and negative timeouts, naming the field", () => {
    expect(() => parseSummarizerConfig({ summarizerThinking: "extreme" })).toThrow(/summarizerThinking/);
    expect(() => parseSummarizerConfig({ summarizerIdleTimeoutMs: -1 })).toThrow(/summarizerIdleTimeoutMs/);
  });
  it("accepts 0 to turn a timer off", () => {
    expect(parseSummarizerConfig({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 0 })).toMatchObject({
      summarizerIdleTimeoutMs: 0,
      summarizerMaxTimeoutMs: 0,
    });
  });
});

describe("model resolution", () => {
  it("splits at the first slash only", () => {
    expect(splitModelRef("openrouter/anthropic/claude-sonnet-4")).toEqual({
      provider: "openrouter",
      id: "anthropic/claude-sonnet-4",
    });
    expect(() => splitModelRef("gpt-4o")).toThrow(/provider\/model-id/);
  });
  it("treats default/deterministic/empty as no model", () => {
    expect(["default", "deterministic", "", " Default "].every(isNoModel)).toBe(true);
    expect(resolveModel("default", parseSummarizerConfig({}))).toBeNull();
  });
  it("resolves catalogue models with their prices and refuses unknown ones", () => {
    const r = resolveModel("anthropic/claude-sonnet-4-5", parseSummarizerConfig({ apiKeys: { anthropic: "k" } }));
    expect(r?.model.cost.input).toBeGreaterThan(0);
    expect(r?.apiKey).toBe("k");
    expect(() => resolveModel("anthropic/no-such-model", parseSummarizerConfig({}))).toThrow(/no model/);
    expect(() => resolveModel("nowhere/x", parseSummarizerConfig({}))).toThrow(/unknown provider/);
  });
});

describe("thinking (CAP-SUM-4)", () => {
  it.each([
    ["high", "high"],
    ["low", "low"],
    ["default", undefined],
    ["off", undefined],
  ] as const)("%s sends reasoning_effort=%s", async (level, expected) => {
    const fake = await startFakeProvider(() => ({ kind: "ok", text: GOOD_SUMMARY }));
    try {
      const model = { ...fakeModel(fake.openaiBaseUrl, "thinker"), reasoning: true };
      await createSummarizer(
        fastConfig({ summarizerModel: "fake-openai/thinker", summarizerThinking: level, customModels: [model] }),
      ).summarizeBatch(sampleBatch(), { refs: ["t1", "t2"] });
      expect(fake.requests[0]!.body.reasoning_effort).toBe(expected);
    } finally {
      await fake.close();
    }
  });
});
