/**
 * The agent's own model summarizes (issue 16 item 1), proven with the real pi agent (0.73.1) headless
 * and no Condense configuration at all: no `condense` settings, no CONDENSE_* variables, the per-user
 * local service in the agent dir (started before pi, see local-service-warm.ts, and found by the
 * extension on its socket). It outlives pi, so each suite stops it (SIGTERM: active flushes finish,
 * the data directory's lock is released) before opening its database, and again when it ends, so no
 * service outlives the test. pi knows one provider, a local fake OpenAI-compatible server registered in its models.json
 * with a key of its own. The extension resolves the session's model and key through pi's registry and
 * hands them to the service; the worker's summarizer calls then reach the fake with that key, the
 * committed summaries are the fake's text, flush_metrics and `/condense status` name the model, and
 * the key is written nowhere on disk.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@condense/db";
import { startFakeLlm, textOf, type ChatBody, type FakeLlm, type ScriptedReply } from "@condense/test-support/fake-llm";
import { preparePiHome, runPi, startRpcPi, type PiHome, type PiRun } from "./pi-runner.ts";
import { stopLocalService, waitFor } from "./local-service-support.ts";
import { warmLocalService } from "./local-service-warm.ts";
import { embeddedPgliteDir, localDataDir } from "./scenario-run.ts";

const KEY = `models-json-key-${Math.random().toString(36).slice(2, 10)}`;
const bash = (command: string) => ({ name: "bash", args: { command } });
const condensed = (body: ChatBody) =>
  body.messages.some((m) => m.role === "tool" && textOf(m.content).startsWith("[Condensed"));

const SCENARIOS = {
  OWN1: (step: number): ScriptedReply =>
    [{ calls: [bash("seq 1 300")] }, { calls: [bash("seq 301 600")] }, { text: "OWN1 done: two ranges inspected." }][
      Math.min(step, 2)
    ]!,
  // Keep working (slowly) until the earlier outputs arrive stubbed, i.e. the service has summarized them.
  OWN2: (step: number, body: ChatBody): ScriptedReply =>
    condensed(body) || step >= 16
      ? { text: "OWN2 done." }
      : { calls: [bash(`sleep 0.5; seq ${1000 + step * 300} ${1299 + step * 300}`)] },
};

interface MetricsRow {
  model: string | null;
  body_source: string | null;
  summarizer_source: string | null;
  summarizer_notice: string | null;
  summary_models: { summaryId: string; model: string; bodySource: string }[] | null;
}

/**
 * One headless pi run of OWN1 and OWN2 and `/condense status` (CONDENSE_QUIET=0 only so its text
 * reaches stderr), then the committed summaries and flush_metrics rows from the local service's
 * database, read once the service pi started (which owns the database until then) has stopped.
 */
async function runOwnModel(
  home: PiHome,
): Promise<{ run: PiRun; summaries: { id: string; text: string }[]; metrics: MetricsRow[] }> {
  const run = await runPi(
    home,
    ["SCENARIO OWN1: inspect two ranges", "SCENARIO OWN2: keep going", "/condense status"],
    {
      CONDENSE_QUIET: "0",
    },
  );
  if (run.code !== 0) throw new Error(`pi exited ${run.code}\n${run.stderr.slice(-4000)}`);
  await stopLocalService(localDataDir(home));
  const db = await createDb(`pglite:${embeddedPgliteDir(home)}`);
  try {
    const summaries = (
      await db.pglite!.query<{ id: string; text: string }>("select id, text from summaries order by seq")
    ).rows;
    const metrics = (
      await db.pglite!.query<MetricsRow>(
        "select model, body_source, summarizer_source, summarizer_notice, summary_models from flush_metrics where processed_batches > 0 order by id",
      )
    ).rows;
    return { run, summaries, metrics };
  } finally {
    await db.close();
  }
}

/** Stops the local service if a failed run left it up, closes the fake LLM, removes the home. */
async function cleanUp(llm: FakeLlm | undefined, home: PiHome | undefined): Promise<void> {
  if (home) await stopLocalService(localDataDir(home)).catch(() => {});
  await llm?.close();
  if (home) rmSync(home.root, { recursive: true, force: true });
}

describe("real pi + Condense with no configuration: pi's own model summarizes", () => {
  let llm: FakeLlm;
  let home: PiHome;
  let run: PiRun;
  let summaries: { id: string; text: string }[] = [];
  let metrics: MetricsRow[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS });
    // No Condense configuration at all: pi's settings without a `condense` key, and a key of pi's own.
    home = preparePiHome(mkdtempSync(join(tmpdir(), "condense-own-model-")), llm.baseUrl, null, 128_000);
    const models = JSON.parse(readFileSync(join(home.agentDir, "models.json"), "utf8")) as {
      providers: { fake: { apiKey: string } };
    };
    models.providers.fake.apiKey = KEY;
    writeFileSync(join(home.agentDir, "models.json"), JSON.stringify(models, null, 2));
    await warmLocalService(home);
    ({ run, summaries, metrics } = await runOwnModel(home));
  }, 300_000);

  afterAll(() => cleanUp(llm, home));

  it("the summarizer requests reach pi's provider with the key from models.json", () => {
    const summarizer = llm.requests.filter((r) => r.kind === "summarizer");
    expect(summarizer.length).toBeGreaterThan(0);
    for (const r of summarizer) {
      expect(r.authorization).toBe(`Bearer ${KEY}`);
      expect(r.body.model).toBe("fake-model");
      expect(r.body.tools ?? []).toEqual([]);
    }
    // the agent's own calls carry the same key: the summarizer used what pi would send
    expect(llm.requests.find((r) => r.kind === "agent")?.authorization).toBe(`Bearer ${KEY}`);
  });

  it("the committed summaries are the fake provider's text", () => {
    expect(summaries.length).toBeGreaterThan(0);
    // the fake answers every batch with bullets of its own wording (fake-llm.ts summarizeBatch)
    for (const s of summaries)
      expect(s.text).toMatch(/^- (\[\[\d+:bash\]\] bash succeeded; output starts with "|nothing worth keeping)/);
  });

  it("flush_metrics names the model per summary, handed off by the agent, with no notice", () => {
    expect(metrics.length).toBeGreaterThan(0);
    for (const m of metrics) {
      expect(m).toMatchObject({
        model: "fake/fake-model",
        body_source: "llm-primary",
        summarizer_source: "handed-off",
        summarizer_notice: null,
      });
    }
    const perSummary = metrics.flatMap((m) => m.summary_models ?? []);
    expect(perSummary.map((x) => x.summaryId).sort()).toEqual(summaries.map((s) => s.id).sort());
    expect(new Set(perSummary.map((x) => x.model))).toEqual(new Set(["fake/fake-model"]));
  });

  it("/condense status shows the model that summarized", () => {
    expect(run.stderr).toContain("Condense status");
    expect(run.stderr).toContain("summarized by: fake/fake-model (this session's model, through pi)");
  });

  it("the key is written nowhere under the agent's directory except pi's own models.json", () => {
    let hits = "";
    try {
      hits = execFileSync("grep", ["-rlaF", KEY, home.root], { encoding: "utf8" });
    } catch (err) {
      // grep exits 1 when nothing matches
      if ((err as { status?: number }).status !== 1) throw err;
    }
    expect(hits.trim().split("\n").filter(Boolean)).toEqual([join(home.agentDir, "models.json")]);
  });
});

/** pi's models.json with the agent's provider and a second one, each with a key of its own. */
function twoProviders(home: PiHome, baseUrl: string, agentKey: string, otherKey: string): void {
  const models = JSON.parse(readFileSync(join(home.agentDir, "models.json"), "utf8")) as {
    providers: Record<string, Record<string, unknown>>;
  };
  models.providers.fake!.apiKey = agentKey;
  models.providers.summ = {
    baseUrl,
    api: "openai-completions",
    apiKey: otherKey,
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [
      {
        id: "summary-model",
        name: "Summary Model",
        reasoning: false,
        input: ["text"],
        contextWindow: 64000,
        maxTokens: 2048,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      },
    ],
  };
  writeFileSync(join(home.agentDir, "models.json"), JSON.stringify(models, null, 2));
}

describe.each([
  {
    name: "a provider/id in pi's registry summarizes with that model and its own key",
    model: "summ/summary-model",
    expectModel: "summary-model",
    expectLabel: "summ/summary-model",
    key: "other" as const,
  },
  {
    name: "a provider/id not in pi's registry falls back to the session model, with a notice",
    model: "nope/missing",
    expectModel: "fake-model",
    expectLabel: "fake/fake-model",
    key: "agent" as const,
  },
])("real pi + Condense, summarizerModel set: $name", ({ model, expectModel, expectLabel, key }) => {
  const agentKey = `agent-${Math.random().toString(36).slice(2, 8)}`;
  const otherKey = `other-${Math.random().toString(36).slice(2, 8)}`;
  let llm: FakeLlm;
  let home: PiHome;
  let run: PiRun;
  let metrics: MetricsRow[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS });
    home = preparePiHome(
      mkdtempSync(join(tmpdir(), "condense-own-model-")),
      llm.baseUrl,
      { summarizerModel: model },
      128_000,
    );
    twoProviders(home, llm.baseUrl, agentKey, otherKey);
    await warmLocalService(home);
    ({ run, metrics } = await runOwnModel(home));
  }, 300_000);

  afterAll(() => cleanUp(llm, home));

  it("sends the summarizer requests to the model pi's registry resolved, with that provider's key", () => {
    const summarizer = llm.requests.filter((r) => r.kind === "summarizer");
    expect(summarizer.length).toBeGreaterThan(0);
    for (const r of summarizer) {
      expect(r.body.model).toBe(expectModel);
      expect(r.authorization).toBe(`Bearer ${key === "other" ? otherKey : agentKey}`);
    }
    for (const r of llm.requests.filter((x) => x.kind === "agent")) expect(r.authorization).toBe(`Bearer ${agentKey}`);
  });

  it("flush_metrics and /condense status name it, and the notice when the lookup failed", () => {
    expect(metrics.length).toBeGreaterThan(0);
    for (const m of metrics) expect(m).toMatchObject({ model: expectLabel, summarizer_source: "handed-off" });
    expect(run.stderr).toContain(`summarized by: ${expectLabel} (this session's model, through pi)`);
    if (key === "agent") {
      const notice = `summarizerModel "nope/missing" is not in pi's model registry; summarizing with the session model fake/fake-model`;
      for (const m of metrics) expect(m.summarizer_notice).toBe(notice);
      expect(run.stderr).toContain(`notice: ${notice}`);
      // and the user was told at once (CAP-SUM-5's warning)
      expect(run.stderr).toContain(`condense: ${notice}`);
    } else {
      for (const m of metrics) expect(m.summarizer_notice).toBeNull();
    }
  });
});

describe("real pi (RPC) + Condense: after model_select the new model summarizes", () => {
  const agentKey = `agent-${Math.random().toString(36).slice(2, 8)}`;
  const otherKey = `other-${Math.random().toString(36).slice(2, 8)}`;
  let llm: FakeLlm;
  let home: PiHome;

  beforeAll(async () => {
    llm = await startFakeLlm({
      scenarios: {
        ...SCENARIOS,
        OWN3: (step: number): ScriptedReply =>
          step === 0 ? { calls: [bash("seq 2000 2300")] } : { text: "OWN3 done." },
      },
    });
    home = preparePiHome(mkdtempSync(join(tmpdir(), "condense-own-model-rpc-")), llm.baseUrl, null, 128_000);
    twoProviders(home, llm.baseUrl, agentKey, otherKey);
    await warmLocalService(home);
  }, 300_000);

  afterAll(() => cleanUp(llm, home));

  it("hands off the selected model: summaries before the switch by fake/fake-model, after it by summ/summary-model", async () => {
    const pi = startRpcPi(home);
    try {
      const ends = () => pi.events.filter((e) => e.type === "agent_end").length;
      const summarizer = () => llm.requests.filter((r) => r.kind === "summarizer");
      pi.send({ type: "prompt", message: "SCENARIO OWN1: inspect two ranges" });
      await waitFor("the first prompt", () => ends() >= 1);
      await waitFor("a summary by the session model", () => summarizer().length > 0);
      pi.send({ id: "sm", type: "set_model", provider: "summ", modelId: "summary-model" });
      await waitFor("set_model", () => pi.events.some((e) => e.type === "response" && e.command === "set_model"));
      expect(pi.events.find((e) => e.type === "response" && e.command === "set_model")).toMatchObject({
        success: true,
      });
      const before = summarizer().length;
      pi.send({ type: "prompt", message: "SCENARIO OWN3: one more range" });
      await waitFor("the second prompt", () => ends() >= 2);
      await waitFor("a summary after the switch", () => summarizer().length > before);
      const [first, after] = [summarizer().slice(0, before), summarizer().slice(before)];
      for (const r of first) expect([r.body.model, r.authorization]).toEqual(["fake-model", `Bearer ${agentKey}`]);
      for (const r of after) expect([r.body.model, r.authorization]).toEqual(["summary-model", `Bearer ${otherKey}`]);
    } finally {
      await pi.close();
    }
  }, 180_000);
});
