/**
 * pi-ai is loaded on first use, and only its dispatch and catalogue modules (src/pi-ai.ts): the
 * per-user local service's start loaded all of it for nothing (about 0.3 s of CPU while the agent that
 * started it runs). Building summarizers with no model, resolving a custom model with its own key,
 * and summarizing deterministically leave it unloaded; a provider call loads it and goes through the
 * real pi-ai client; catalogue models resolve as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "@condense/test-support/fake-provider";
import { parseSummarizerConfig } from "../src/config.ts";
import { resolveModel } from "../src/model-resolve.ts";
import { piAiLoaded } from "../src/pi-ai.ts";
import { createSummarizer } from "../src/summarizer.ts";
import { GOOD_SUMMARY, fakeModel, fastConfig, sampleBatch } from "./support/fixtures.ts";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

// One sequence: what loads pi-ai can only be seen before anything in this file has loaded it.
describe("pi-ai on first use", () => {
  it("stays unloaded for the deterministic summarizer and a custom model with its own key", async () => {
    expect(piAiLoaded()).toBe(null);
    const deterministic = createSummarizer(fastConfig({ summarizerModel: "deterministic" }));
    const r = await deterministic.summarizeBatch(sampleBatch(), { refs: ["t5", "t6"] });
    expect(r.bodySource).toBe("deterministic");
    const custom = fastConfig({
      summarizerModel: "fake-openai/primary",
      customModels: [fakeModel(fake.openaiBaseUrl, "primary")],
    });
    const s = createSummarizer(custom);
    expect(resolveModel("fake-openai/primary", parseSummarizerConfig(custom))?.apiKey).toBe("test-key");
    expect(s).toBeDefined();
    expect(piAiLoaded()).toBe(null);
  });

  it("loads it for a provider call, which goes through the real pi-ai client", async () => {
    fake.script = () => ({ kind: "ok", text: GOOD_SUMMARY, inputTokens: 1000, outputTokens: 200 });
    const s = createSummarizer(
      fastConfig({ summarizerModel: "fake-openai/primary", customModels: [fakeModel(fake.openaiBaseUrl, "primary")] }),
    );
    const r = await s.summarizeBatch(sampleBatch(), { refs: ["t5", "t6"] });
    expect(r.bodySource).toBe("llm-primary");
    expect(fake.requests.length).toBeGreaterThan(0);
    // pi-ai's dispatch and catalogue modules, not its whole entry (typebox and every helper): if a
    // pi-ai release moves them, this fails while the summarizer still works through the entry.
    expect(piAiLoaded()).toBe("parts");
  });

  it("resolves catalogue models and their errors as before", () => {
    const config = parseSummarizerConfig({ apiKeys: { anthropic: "k" } });
    const m = resolveModel("anthropic/claude-sonnet-4-5", config);
    expect(m?.model.provider).toBe("anthropic");
    expect(m?.apiKey).toBe("k");
    expect(() => resolveModel("nope/x", config)).toThrow(/unknown provider "nope"/);
    expect(() => resolveModel("anthropic/no-such-model", config)).toThrow(/has no model "no-such-model"/);
  });
});
