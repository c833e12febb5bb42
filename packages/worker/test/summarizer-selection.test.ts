/**
 * Which model summarizes a session's flush (summarizer-selection.ts), end to end through `runFlush`
 * on PGlite and real Postgres, with the models served by a local fake provider (OpenAI wire protocol):
 * a handed-off model (the agent's own key, its outage fallback and a fresh outage state per hand-off,
 * its auth failure, the session's timeouts), an operator-configured model picked by the session's
 * summarizerModel, the worker default with a notice, and the explicit deterministic choice. Every
 * flush_metrics row names the model that produced each summary.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDeterministicSummarizer,
  createHandOffRegistry,
  type HandedOffModel,
  type SummarizerHandOff,
} from "@condense/summarizer";
import { runFlush, createSummarizerSelection, type SelectSummarizer } from "../src/index.ts";
import { startFakeProvider, type Behaviour, type FakeProvider } from "@condense/test-support/fake-provider";
import { batch, call, capture, requestFlush, T0, TENANT } from "./support/flush-fixtures.ts";
import { metricsRows, stateOf } from "./support/state-reads.ts";
import { useSuiteDatabase } from "./support/suite-database.ts";
import { testDbKinds } from "@condense/test-support/test-db";

let fake: FakeProvider;
/** Per model id: what the fake answers (default: a labelled summary naming the model). */
const behaviour = new Map<string, Behaviour>();

beforeAll(async () => {
  fake = await startFakeProvider(
    (req) => behaviour.get(req.model) ?? { kind: "ok", text: `- [[1:bash]] summary by ${req.model}` },
  );
});
afterAll(async () => {
  await fake.close();
});

function piModel(id: string, key: string | null): HandedOffModel {
  return {
    provider: "pi-fake",
    id,
    api: "openai-completions",
    baseUrl: fake.openaiBaseUrl,
    name: id,
    reasoning: false,
    input: ["text"],
    contextWindow: 128_000,
    maxTokens: 4096,
    cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    auth: key === null ? { ok: false, error: 'No API key found for "pi-fake"' } : { ok: true, apiKey: key },
  };
}

const operatorConfig = () => ({
  summarizerModel: "op/worker-default",
  retries: 0,
  apiKeys: { op: "operator-key" },
  customModels: ["worker-default", "picked"].map((id) => ({
    provider: "op",
    id,
    api: "openai-completions" as const,
    baseUrl: fake.openaiBaseUrl,
  })),
});

let seq = 0;
async function flush(
  db: Parameters<typeof capture>[0],
  select: SelectSummarizer,
  sessionId: string,
  settings: Record<string, unknown> = {},
) {
  seq++;
  await capture(db, sessionId, [batch(seq, [call(`bash_${seq}`, T0 + seq)])]);
  const request = await requestFlush(db, sessionId, { settings });
  const before = fake.requests.length;
  const result = await runFlush(
    { db, summarizer: createDeterministicSummarizer(), selectSummarizer: select, workerId: "w-test" },
    {
      payload: { tenantId: TENANT, sessionId, flushRequestId: request.id, cursor: request.cursor },
      attempt: 1,
      maxAttempts: 3,
      enqueuedAt: Date.now(),
      startedAt: Date.now(),
      signal: new AbortController().signal,
    },
  );
  const rows = await metricsRows(db, sessionId);
  return { result, metrics: rows.at(-1)!, calls: fake.requests.slice(before), state: await stateOf(db, sessionId) };
}

describe.each(testDbKinds())("summarizer selection (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("a handed-off model summarizes with the agent's key; the row names it per summary", async () => {
    const handOffs = createHandOffRegistry();
    const select = createSummarizerSelection({ config: {}, handOffs });
    handOffs.put(TENANT, "s-handed", { primary: piModel("agent-model", "agent-key"), fallback: null, notices: [] });
    const { result, metrics, calls, state } = await flush(suite.db, select, "s-handed");
    expect(result.status).toBe("committed");
    expect(calls.map((c) => [c.model, c.authorization])).toEqual([["agent-model", "Bearer agent-key"]]);
    expect(state.summaries[0]!.text).toContain("summary by agent-model");
    expect(metrics).toMatchObject({
      model: "pi-fake/agent-model",
      bodySource: "llm-primary",
      summarizerSource: "handed-off",
      summarizerNotice: null,
    });
    expect(metrics.summaryModels).toEqual([
      { summaryId: state.summaries[0]!.id, model: "pi-fake/agent-model", bodySource: "llm-primary" },
    ]);
  });

  it("CAP-SUM-9: a failing primary falls back to the session model, stays there, and a new hand-off starts over", async () => {
    const handOffs = createHandOffRegistry();
    const select = createSummarizerSelection({ config: {}, handOffs });
    const handOff: SummarizerHandOff = {
      primary: piModel("flaky-primary", "k-primary"),
      fallback: piModel("session-model", "k-session"),
      notices: [],
    };
    handOffs.put(TENANT, "s-outage", handOff);
    behaviour.set("flaky-primary", { kind: "status", status: 503 });
    try {
      const first = await flush(suite.db, select, "s-outage");
      // one attempt on the primary (no blind retries), then the session model
      expect(first.calls.map((c) => [c.model, c.authorization])).toEqual([
        ["flaky-primary", "Bearer k-primary"],
        ["session-model", "Bearer k-session"],
      ]);
      expect(first.metrics.summaryModels![0]).toMatchObject({
        model: "pi-fake/session-model",
        bodySource: "llm-fallback",
      });
      expect(first.state.summaries.at(-1)!.text).toContain("summary by session-model");
      expect(first.metrics.summarizerNotice).toContain(
        "summarizer model pi-fake/flaky-primary failing, using pi-fake/session-model until it recovers",
      );
      // in fallback: the next flush goes straight to the session model (the probe waits for the cooldown)
      const second = await flush(suite.db, select, "s-outage");
      expect(second.calls.map((c) => c.model)).toEqual(["session-model"]);
      // a new hand-off (session start, model change) resets the session's outage state
      behaviour.delete("flaky-primary");
      handOffs.put(TENANT, "s-outage", handOff);
      const third = await flush(suite.db, select, "s-outage");
      expect(third.calls.map((c) => c.model)).toEqual(["flaky-primary"]);
      expect(third.metrics.summaryModels![0]).toMatchObject({
        model: "pi-fake/flaky-primary",
        bodySource: "llm-primary",
      });
    } finally {
      behaviour.delete("flaky-primary");
    }
  });

  it("CAP-SUM-8: the session model alone, failing: a deterministic body now, the model again on the next flush", async () => {
    const handOffs = createHandOffRegistry();
    const select = createSummarizerSelection({ config: {}, handOffs });
    handOffs.put(TENANT, "s-single", { primary: piModel("only-model", "k"), fallback: null, notices: [] });
    behaviour.set("only-model", { kind: "status", status: 500 });
    try {
      const down = await flush(suite.db, select, "s-single");
      expect(down.calls.map((c) => c.model)).toEqual(["only-model"]);
      expect(down.metrics).toMatchObject({
        model: "deterministic",
        bodySource: "deterministic",
        summarizerSource: "handed-off",
      });
      expect(down.metrics.summarizerNotice).toContain("summarizer pi-fake/only-model failed");
      behaviour.delete("only-model");
      const back = await flush(suite.db, select, "s-single");
      expect(back.calls.map((c) => c.model)).toEqual(["only-model"]);
      expect(back.metrics).toMatchObject({
        model: "pi-fake/only-model",
        bodySource: "llm-primary",
        summarizerNotice: null,
      });
    } finally {
      behaviour.delete("only-model");
    }
  });

  it("an unresolved key is an auth failure before any request; the fallback summarizes; the agent's notice reaches the row", async () => {
    const handOffs = createHandOffRegistry();
    const select = createSummarizerSelection({ config: {}, handOffs });
    handOffs.put(TENANT, "s-auth", {
      primary: piModel("keyless", null),
      fallback: piModel("session-model", "k-session"),
      notices: [
        'summarizerModel "nope/x" is not in pi\'s model registry; summarizing with the session model pi-fake/keyless',
      ],
    });
    const { calls, metrics } = await flush(suite.db, select, "s-auth", { summarizerModel: "nope/x" });
    expect(calls.map((c) => c.model)).toEqual(["session-model"]);
    expect(metrics).toMatchObject({
      model: "pi-fake/session-model",
      bodySource: "llm-fallback",
      summarizerSource: "handed-off",
    });
    expect(metrics.summarizerNotice).toContain("not in pi's model registry");
  });

  it("the session's idle timeout applies to a handed-off model: a stalled primary is abandoned for the fallback", async () => {
    const handOffs = createHandOffRegistry();
    const select = createSummarizerSelection({ config: {}, handOffs });
    handOffs.put(TENANT, "s-stall", {
      primary: piModel("stalls", "k1"),
      fallback: piModel("session-model", "k2"),
      notices: [],
    });
    behaviour.set("stalls", { kind: "stall" });
    try {
      const { calls, metrics } = await flush(suite.db, select, "s-stall", {
        summarizerIdleTimeoutMs: 300,
        summarizerMaxTimeoutMs: 0,
      });
      expect(calls.map((c) => c.model)).toEqual(["stalls", "session-model"]);
      expect(metrics.summaryModels![0]).toMatchObject({ model: "pi-fake/session-model", bodySource: "llm-fallback" });
    } finally {
      behaviour.delete("stalls");
    }
  });

  it("fleet: summarizerModel picks an operator-configured model with the operator's key", async () => {
    const select = createSummarizerSelection({
      config: operatorConfig(),
      sessionModels: ["op/picked"],
      handOffs: createHandOffRegistry(),
    });
    const { calls, metrics } = await flush(suite.db, select, "s-fleet", { summarizerModel: "op/picked" });
    expect(calls.map((c) => [c.model, c.authorization])).toEqual([["picked", "Bearer operator-key"]]);
    expect(metrics).toMatchObject({ model: "op/picked", summarizerSource: "operator", summarizerNotice: null });
  });

  it("fleet: a model the operator did not configure, or 'default' with nothing handed off, uses the worker default with a notice", async () => {
    const select = createSummarizerSelection({ config: operatorConfig(), sessionModels: ["op/picked"] });
    const unknown = await flush(suite.db, select, "s-unknown", { summarizerModel: "anthropic/claude-x" });
    expect(unknown.calls.map((c) => c.model)).toEqual(["worker-default"]);
    expect(unknown.metrics).toMatchObject({ model: "op/worker-default", summarizerSource: "worker-default" });
    expect(unknown.metrics.summarizerNotice).toBe(
      'summarizerModel "anthropic/claude-x" is not one of this service\'s models (op/picked, op/worker-default); summarizing with the worker default (op/worker-default)',
    );
    const dflt = await flush(suite.db, select, "s-default", {});
    expect(dflt.calls.map((c) => c.model)).toEqual(["worker-default"]);
    expect(dflt.metrics.summarizerNotice).toContain('no model was handed off for this session, so "default"');
  });

  it("'deterministic' is an explicit choice: no model call even with a hand-off", async () => {
    const handOffs = createHandOffRegistry();
    handOffs.put(TENANT, "s-det", { primary: piModel("agent-model", "k"), fallback: null, notices: [] });
    const select = createSummarizerSelection({ config: operatorConfig(), handOffs });
    const { calls, metrics } = await flush(suite.db, select, "s-det", { summarizerModel: "deterministic" });
    expect(calls).toEqual([]);
    expect(metrics).toMatchObject({
      model: "deterministic",
      bodySource: "deterministic",
      summarizerSource: "deterministic",
      summarizerNotice: null,
    });
  });
});
