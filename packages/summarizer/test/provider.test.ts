/**
 * The provider-backed summarizer against local servers speaking the OpenAI and Anthropic wire
 * protocols (the real pi-ai client code runs). pi-condense's notices (AS-15..AS-22) are asserted as
 * Condense's structured results: attempts, events, body source, and log lines.
 */
import { Registry } from "prom-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSummarizer } from "../src/summarizer.ts";
import { createMemoryBreakerStore } from "../src/breaker-memory.ts";
import { SummarizerAbortError } from "../src/types.ts";
import { startFakeProvider, type Behaviour, type FakeProvider } from "@condense/test-support/fake-provider";
import { GOOD_SUMMARY, fakeModel, fastConfig, memoryLogger, sampleBatch } from "./support/fixtures.ts";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const REFS = ["t5", "t6"];
const byModel = (map: Record<string, (n: number) => Behaviour>) => (req: { model: string }) => {
  const count = fake.requests.filter((r) => r.model === req.model).length;
  const f = map[req.model];
  if (!f) throw new Error(`unscripted model ${req.model}`);
  return f(count);
};

function openai(over: Parameters<typeof fastConfig>[0] = {}, models = ["primary", "backup"]) {
  return fastConfig({
    summarizerModel: "fake-openai/primary",
    customModels: models.map((m) => fakeModel(fake.openaiBaseUrl, m)),
    ...over,
  });
}

describe.each(["openai-completions", "anthropic-messages"] as const)("wire protocol %s", (api) => {
  const provider = api === "openai-completions" ? "fake-openai" : "fake-anthropic";
  const config = (over: Parameters<typeof fastConfig>[0] = {}) =>
    fastConfig({
      summarizerModel: `${provider}/primary`,
      customModels: [
        fakeModel(api === "openai-completions" ? fake.openaiBaseUrl : fake.anthropicBaseUrl, "primary", api),
      ],
      ...over,
    });

  it("summarizes: labels become the batch's refs, footer appended, usage and cost from model prices", async () => {
    fake.script = () => ({ kind: "ok", text: GOOD_SUMMARY, inputTokens: 1000, outputTokens: 200 });
    const s = createSummarizer(config());
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.bodySource).toBe("llm-primary");
    expect(r.model).toBe(`${provider}/primary`);
    expect(r.text.startsWith("- `t5` Read `src/a/config.ts`")).toBe(true);
    expect(r.text).toContain("- `t6` `npm test` failed");
    expect(r.text).not.toMatch(/\[\[\d+:/);
    expect(r.text).toMatch(/\n\n---\n\*\*[^*]+\*\*: `t5`, `t6`\n.*context_tree_query/);
    expect(r.usage.input).toBe(1000);
    expect(r.usage.output).toBe(200);
    expect(r.cost).toBeCloseTo((1000 * 3 + 200 * 15) / 1e6, 10);
    expect(r.attempts).toHaveLength(1);
    expect(fake.requests[0]!.authorization).toContain("test-key");
    // CAP-SUM-1: one user message, instructions then the labelled batch inside the tags.
    expect(fake.requests[0]!.prompt).toMatch(
      /<tool-call-batch>\nAssistant said: Let me check the failing test\.\n\n\[\[1:read\]\] Tool: read/,
    );
  });

  it("AS-21: empty output is unusable: no retry, no breaker change, deterministic body", async () => {
    fake.script = () => ({ kind: "empty" });
    const s = createSummarizer(config());
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(fake.requests).toHaveLength(1);
    expect(r.attempts.map((a) => [a.outcome, a.detail])).toEqual([["unusable", "empty"]]);
    expect(r.bodySource).toBe("deterministic");
    expect(r.events).toContainEqual({ kind: "deterministic-used", reason: "unusable-output" });
    expect((await s.fallbackState()).mode).toBe("primary");
  });

  it("AS-21: truncated output (length / max_tokens) is unusable and not retried", async () => {
    fake.script = () => ({ kind: "truncated", text: "- [[1:read]] Read src/a/config.ts and then" });
    const s = createSummarizer(config());
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(fake.requests).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({ outcome: "unusable", detail: "truncated" });
    expect(r.bodySource).toBe("deterministic");
    expect(r.usage.output).toBeGreaterThan(0); // a truncated answer was still paid for
    expect((await s.fallbackState()).mode).toBe("primary");
  });

  it("429 with Retry-After is waited out, then retried", async () => {
    fake.script = (_r, n) =>
      n === 1 ? { kind: "status", status: 429, retryAfter: "1" } : { kind: "ok", text: GOOD_SUMMARY };
    const s = createSummarizer(config());
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.bodySource).toBe("llm-primary");
    expect(r.attempts.map((a) => a.outcome)).toEqual(["transient", "ok"]);
    expect(r.attempts[0]).toMatchObject({ status: 429, retryAfterMs: 1000 });
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it("401 is an auth failure: not retried, breaker untouched", async () => {
    fake.script = () => ({ kind: "status", status: 401, message: "invalid x-api-key" });
    const s = createSummarizer(config());
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(fake.requests).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({ outcome: "auth", status: 401 });
    expect(r.bodySource).toBe("deterministic");
    expect((await s.fallbackState()).mode).toBe("primary");
  });
});

describe("failures and outage fallback (OpenAI wire)", () => {
  it("500 is transient: retried with backoff, then succeeds", async () => {
    fake.script = (_r, n) => (n === 1 ? { kind: "status", status: 500 } : { kind: "ok", text: GOOD_SUMMARY });
    const r = await createSummarizer(openai()).summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.attempts.map((a) => [a.outcome, a.status])).toEqual([
      ["transient", 500],
      ["ok", 200],
    ]);
    expect(r.bodySource).toBe("llm-primary");
  });

  it("a connection cut mid-stream is transient", async () => {
    fake.script = (_r, n) =>
      n === 1 ? { kind: "reset", text: "- [[1:read]] partial" } : { kind: "ok", text: GOOD_SUMMARY };
    const r = await createSummarizer(openai()).summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.attempts.map((a) => a.outcome)).toEqual(["transient", "ok"]);
  });

  it("AS-15: the only model keeps failing: deterministic body, failure reported as events and a log line", async () => {
    fake.script = () => ({ kind: "status", status: 503, message: "overloaded" });
    const logger = memoryLogger();
    const s = createSummarizer(openai({ retries: 1 }, ["primary"]), { logger });
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(fake.requests).toHaveLength(2);
    expect(r.bodySource).toBe("deterministic");
    expect(r.model).toBe("deterministic");
    expect(r.text).toContain("`t6` bash `npm test` → error, exit 1");
    expect(r.events).toContainEqual({
      kind: "attempt-failed",
      model: "fake-openai/primary",
      outcome: "transient",
      message: "503 overloaded",
    });
    expect(r.events).toContainEqual({ kind: "deterministic-used", reason: "all-models-failed" });
    expect(
      logger.lines.some((l) => l.level === "warn" && l.obj.event === "summarizer.attempt" && l.obj.status === 503),
    ).toBe(true);
    expect(r.fidelity.after).toBe(1);
  });

  it("AS-16: primary fails transiently, fallback succeeds: one switch event, later calls go straight to the fallback", async () => {
    fake.script = byModel({
      primary: () => ({ kind: "status", status: 500 }),
      backup: () => ({ kind: "ok", text: GOOD_SUMMARY }),
    });
    const logger = memoryLogger();
    const registry = new Registry();
    const s = createSummarizer(openai({ summarizerFallbackModel: "fake-openai/backup", retries: 0 }), {
      logger,
      registry,
    });
    const first = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(first.bodySource).toBe("llm-fallback");
    expect(first.model).toBe("fake-openai/backup");
    expect(first.events).toContainEqual({
      kind: "fallback-entered",
      primary: "fake-openai/primary",
      fallback: "fake-openai/backup",
    });
    expect(first.text).toContain("`t5`");
    const second = await s.summarizeBatch(sampleBatch("b"), { refs: ["t7", "t8"] });
    expect(second.bodySource).toBe("llm-fallback");
    expect(second.events).toEqual([]);
    expect(second.attempts.map((a) => a.model)).toEqual(["fake-openai/backup"]);
    expect(logger.lines.filter((l) => l.obj.event === "summarizer.fallback-entered")).toHaveLength(1);
    expect(await s.fallbackState()).toMatchObject({
      mode: "fallback",
      primary: "fake-openai/primary",
      fallback: "fake-openai/backup",
    });
    const exposed = await registry.metrics();
    expect(exposed).toContain('condense_summarizer_fallback_active{primary="fake-openai/primary"} 1');
    expect(exposed).toContain(
      'condense_summarizer_fallback_transitions_total{primary="fake-openai/primary",to="fallback"} 1',
    );
    expect(exposed).toContain('condense_summarizer_bodies_total{source="llm-fallback"} 2');
  });

  it("AS-17: both models fail: deterministic body, fleet in fallback, the next good fallback call announces nothing new", async () => {
    let backupUp = false;
    fake.script = byModel({
      primary: () => ({ kind: "status", status: 502 }),
      backup: () => (backupUp ? { kind: "ok", text: GOOD_SUMMARY } : { kind: "status", status: 502 }),
    });
    const s = createSummarizer(openai({ summarizerFallbackModel: "fake-openai/backup", retries: 0 }));
    const r = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.bodySource).toBe("deterministic");
    expect(r.events.filter((e) => e.kind === "fallback-entered")).toHaveLength(1);
    expect((await s.fallbackState()).mode).toBe("fallback");
    backupUp = true;
    const next = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(next.bodySource).toBe("llm-fallback");
    expect(next.attempts.map((a) => a.model)).toEqual(["fake-openai/backup"]);
    expect(next.events.filter((e) => e.kind === "fallback-entered")).toHaveLength(0);
  });

  it("AS-18: in fallback after the cooldown, three parallel calls send exactly one probe; success recovers once", async () => {
    let primaryUp = false;
    fake.script = byModel({
      primary: () => (primaryUp ? { kind: "ok", text: GOOD_SUMMARY } : { kind: "status", status: 500 }),
      backup: () => ({ kind: "ok", text: GOOD_SUMMARY }),
    });
    let clock = 1_000_000;
    const logger = memoryLogger();
    const s = createSummarizer(
      openai({ summarizerFallbackModel: "fake-openai/backup", retries: 0, breakerCooldownMs: 600_000 }),
      { now: () => clock, logger },
    );
    await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect((await s.fallbackState()).mode).toBe("fallback");
    const primaryCalls = () => fake.requests.filter((q) => q.model === "primary").length;
    const before = primaryCalls();

    clock += 599_999; // cooldown not over: no probe
    await Promise.all([1, 2, 3].map(() => s.summarizeBatch(sampleBatch(), { refs: REFS })));
    expect(primaryCalls()).toBe(before);

    primaryUp = true;
    clock += 1;
    const results = await Promise.all([1, 2, 3].map(() => s.summarizeBatch(sampleBatch(), { refs: REFS })));
    expect(primaryCalls()).toBe(before + 1);
    expect(results.filter((r) => r.attempts.some((a) => a.probe))).toHaveLength(1);
    expect(results.flatMap((r) => r.events).filter((e) => e.kind === "primary-recovered")).toHaveLength(1);
    expect(logger.lines.filter((l) => l.obj.event === "summarizer.primary-recovered")).toHaveLength(1);
    expect((await s.fallbackState()).mode).toBe("primary");
    const after = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(after.bodySource).toBe("llm-primary");
  });

  it("AS-18 (still down): a failed probe restarts the cooldown and the call is served by the fallback", async () => {
    fake.script = byModel({
      primary: () => ({ kind: "status", status: 500 }),
      backup: () => ({ kind: "ok", text: GOOD_SUMMARY }),
    });
    let clock = 0;
    const s = createSummarizer(
      openai({ summarizerFallbackModel: "fake-openai/backup", retries: 0, breakerCooldownMs: 1000 }),
      { now: () => clock },
    );
    await s.summarizeBatch(sampleBatch(), { refs: REFS });
    clock = 1000;
    const probe = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(probe.attempts.map((a) => [a.model, a.probe, a.outcome])).toEqual([
      ["fake-openai/primary", true, "transient"],
      ["fake-openai/backup", false, "ok"],
    ]);
    expect(probe.bodySource).toBe("llm-fallback");
    clock = 1999;
    const noProbe = await s.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(noProbe.attempts.map((a) => a.model)).toEqual(["fake-openai/backup"]);
    expect((await s.fallbackState()).lastProbeAt).toBe(1000);
  });

  it("AS-19: a stream that never emits is abandoned after the idle timeout", async () => {
    fake.script = () => ({ kind: "stall" });
    const logger = memoryLogger();
    const started = Date.now();
    const r = await createSummarizer(openai({ summarizerIdleTimeoutMs: 300, retries: 0 }, ["primary"]), {
      logger,
    }).summarizeBatch(sampleBatch(), { refs: REFS });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(r.attempts[0]).toMatchObject({
      outcome: "transient",
      timedOut: "idle",
      detail: "summarizer fake-openai/primary stalled (no output for 0.3s)",
    });
    expect(r.events).toContainEqual({ kind: "stalled", model: "fake-openai/primary", seconds: 0.3 });
    expect(logger.lines.some((l) => l.msg.includes("stalled (no output for 0.3s); attempt abandoned"))).toBe(true);
    expect(r.bodySource).toBe("deterministic");
  });

  it("AS-20: idle off, a dribbling stream is cut at the ceiling", async () => {
    fake.script = () => ({ kind: "dribble", everyMs: 50 });
    const r = await createSummarizer(
      openai({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 400, retries: 0 }, ["primary"]),
    ).summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.attempts[0]).toMatchObject({ outcome: "transient", timedOut: "ceiling" });
    expect(r.attempts[0]!.detail).toContain("exceeded 0.4s ceiling");
    expect(r.events).toContainEqual({ kind: "ceiling-exceeded", model: "fake-openai/primary", seconds: 0.4 });
  });

  it("AS-22: one failing batch among three parallel ones does not affect the others", async () => {
    fake.script = (req) =>
      req.prompt.includes("src/b/") ? { kind: "status", status: 500 } : { kind: "ok", text: GOOD_SUMMARY };
    const s = createSummarizer(openai({ retries: 0 }, ["primary"]));
    const [a, b, c] = await Promise.all(
      ["a", "b", "c"].map((tag, i) => s.summarizeBatch(sampleBatch(tag), { refs: [`t${2 * i + 1}`, `t${2 * i + 2}`] })),
    );
    expect(a!.bodySource).toBe("llm-primary");
    expect(c!.bodySource).toBe("llm-primary");
    expect(b!.bodySource).toBe("deterministic");
    expect(b!.text).toContain("`t3` read path=src/b/config.ts");
    expect(b!.refs).toEqual(["t3", "t4"]);
  });

  it("a caller abort rejects with an AbortError instead of returning a result", async () => {
    fake.script = () => ({ kind: "stall" });
    const controller = new AbortController();
    const s = createSummarizer(openai({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 0 }, ["primary"]));
    const pending = s.summarizeBatch(sampleBatch(), { refs: REFS, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toBeInstanceOf(SummarizerAbortError);
    expect((await s.fallbackState()).mode).toBe("primary");
  });

  it("a caller abort during a Retry-After wait rejects promptly", async () => {
    fake.script = () => ({ kind: "status", status: 429, retryAfter: "30" });
    const controller = new AbortController();
    const s = createSummarizer(openai({ retries: 2 }, ["primary"]));
    const started = Date.now();
    const pending = s.summarizeBatch(sampleBatch(), { refs: REFS, signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a Retry-After beyond the cap is not waited for: the call moves on at once", async () => {
    fake.script = () => ({ kind: "status", status: 429, retryAfter: "3600" });
    const started = Date.now();
    const r = await createSummarizer(openai({ retries: 3, maxRetryAfterMs: 5000 }, ["primary"])).summarizeBatch(
      sampleBatch(),
      { refs: REFS },
    );
    expect(fake.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.bodySource).toBe("deterministic");
  });

  it("a missing API key fails as auth before any request", async () => {
    const model = {
      ...fakeModel(fake.openaiBaseUrl, "primary"),
      apiKey: undefined,
      apiKeyEnv: "CONDENSE_TEST_UNSET_KEY",
    };
    const r = await createSummarizer(
      fastConfig({ summarizerModel: "fake-openai/primary", customModels: [model] }),
    ).summarizeBatch(sampleBatch(), { refs: REFS });
    expect(fake.requests).toHaveLength(0);
    expect(r.attempts[0]).toMatchObject({ outcome: "auth" });
  });

  it("chain fusion (CAP-SUM-11) sends the distinct summaries inside sub-task tags", async () => {
    fake.script = () => ({ kind: "ok", text: "Fixed the parser (`t5`, `t6`)." });
    const s = createSummarizer(openai({}, ["primary"]));
    const r = await s.summarizeRange(["- `t5` read config", "- `t6` ran tests", "- `t5` read config"]);
    expect(r.text).toBe("Fixed the parser (`t5`, `t6`).");
    expect(r.bodySource).toBe("llm-primary");
    expect(fake.requests[0]!.prompt).toMatch(
      /<sub-task-summaries>\n- `t5` read config\n\n- `t6` ran tests\n<\/sub-task-summaries>$/,
    );
  });

  it("a shared breaker store makes a second summarizer (another worker) start in fallback", async () => {
    fake.script = byModel({
      primary: () => ({ kind: "status", status: 500 }),
      backup: () => ({ kind: "ok", text: GOOD_SUMMARY }),
    });
    const store = createMemoryBreakerStore();
    const cfg = openai({ summarizerFallbackModel: "fake-openai/backup", retries: 0 });
    await createSummarizer(cfg, { breakerStore: store }).summarizeBatch(sampleBatch(), { refs: REFS });
    const other = createSummarizer(cfg, { breakerStore: store });
    const r = await other.summarizeBatch(sampleBatch(), { refs: REFS });
    expect(r.attempts.map((a) => a.model)).toEqual(["fake-openai/backup"]);
    expect(r.events).toEqual([]);
  });
});
