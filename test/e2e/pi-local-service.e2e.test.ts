/**
 * Real pi (0.73.1, headless) with the per-user local service, against a fake provider:
 *   1. two pi sessions started at once in one agent dir: the first need starts the service (detached),
 *      the other finds it; both capture, flush (the reply trigger) and recover an older output with
 *      context_tree_query; the service outlives both pi processes;
 *   2. a third session: the service is SIGKILLed while a flush is in flight; the next turn's requests
 *      start a new service (it takes the dead owner's lock over) and nothing is lost: every bash call
 *      the model made is captured, the flush completes, and recovery works after the restart.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@condense/db";
import {
  fakeSummarizerConfig,
  startFakeLlm,
  textOf,
  type ChatBody,
  type FakeLlm,
  type RecordedRequest,
  type Scenario,
} from "@condense/test-support/fake-llm";
import { ownerPid, serviceStarts, stopLocalService, waitFor } from "./local-service-support.ts";
import { preparePiHome, runPi, type PiHome, type PiRun } from "./pi-runner.ts";
import { pairingProblems, stubRefs } from "./request-checks.ts";
import { FAKE_CONTEXT_WINDOW, SCENARIO_SETTINGS } from "./scenario.ts";

const bash = (command: string) => ({ name: "bash", args: { command } });
const afterScenario = (body: ChatBody) => {
  let start = -1;
  body.messages.forEach((m, i) => {
    if (m.role === "user" && textOf(m.content).startsWith("SCENARIO ")) start = i;
  });
  return body.messages.slice(start + 1);
};

/** Prompt 1: three outputs, then a reply (the reply trigger asks for a flush). */
const produce =
  (tag: string): Scenario =>
  (step) =>
    step < 3
      ? { calls: [bash(`echo ${tag}-1-${step}; seq ${step * 300} ${step * 300 + 299}`)] }
      : { text: `${tag} part 1 done.` };

/** Prompt 2: keep working until an older output arrives as a stub, recover it, then finish. */
const recover =
  (tag: string): Scenario =>
  (step, body) => {
    const since = afterScenario(body);
    const queried = since.some((m) => m.tool_calls?.some((c) => c.function.name === "context_tree_query"));
    if (queried || step >= 150) return { text: `${tag} part 2 done.` };
    const ref = stubRefs(body.messages)[0];
    if (ref) return { calls: [{ name: "context_tree_query", args: { toolCallIds: [ref] } }] };
    return { calls: [bash(`sleep 0.4; echo ${tag}-2-${step}; seq ${step} ${step + 200}`)] };
  };

const SCENARIOS: Record<string, Scenario> = {
  LA1: produce("LA"),
  LA2: recover("LA"),
  LB1: produce("LB"),
  LB2: recover("LB"),
  LC1: produce("LC"),
  LC2: recover("LC"),
};
const prompts = (tag: string) => [
  `SCENARIO ${tag}1: produce some outputs`,
  `SCENARIO ${tag}2: keep going and recover an older output`,
];

/** The answer to the session's context_tree_query, and the bash commands its model ran. */
function sessionView(requests: RecordedRequest[], tag: string) {
  const mine = requests.filter((r) => r.kind === "agent" && r.scenario?.startsWith(tag));
  let answer: string | null = null;
  for (const r of mine) {
    const msgs = r.body.messages;
    msgs.forEach((m, i) => {
      const call = m.tool_calls?.find((c) => c.function.name === "context_tree_query");
      const res = call && msgs.slice(i + 1).find((x) => x.role === "tool" && x.tool_call_id === call.id);
      if (res) answer = textOf(res.content);
    });
  }
  const commands = mine.flatMap((r) =>
    r.reply && "calls" in r.reply
      ? r.reply.calls.filter((c) => c.name === "bash").map((c) => String(c.args.command))
      : [],
  );
  return {
    mine,
    answer: answer as string | null,
    commands,
    stubbed: mine.some((r) => stubRefs(r.body.messages).length > 0),
  };
}

describe("real pi + the per-user local service", () => {
  let llm: FakeLlm;
  let root: string;
  let home: PiHome;
  let dataDir: string;
  let env: Record<string, string>;
  const sessionHome = (name: string): PiHome => {
    const sessionDir = join(root, `sessions-${name}`);
    mkdirSync(sessionDir, { recursive: true });
    return { ...home, sessionDir };
  };
  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 2_000 });
    root = mkdtempSync(join(tmpdir(), "condense-pi-local-"));
    home = preparePiHome(root, llm.baseUrl, SCENARIO_SETTINGS, FAKE_CONTEXT_WINDOW);
    dataDir = join(home.agentDir, "condense");
    env = { CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm), CONDENSE_SERVICE_IDLE_MS: "300000" };
  });
  afterAll(async () => {
    await stopLocalService(dataDir).catch(() => {});
    await llm?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("two concurrent sessions share one service it starts; both capture, flush and recover", {
    timeout: 600_000,
  }, async () => {
    const [a, b]: [PiRun, PiRun] = await Promise.all([
      runPi(sessionHome("a"), prompts("LA"), env),
      runPi(sessionHome("b"), prompts("LB"), env),
    ]);
    expect(a.code, a.stderr.slice(-2000)).toBe(0);
    expect(b.code, b.stderr.slice(-2000)).toBe(0);
    // One service for both: one start won the directory; it is still running after both pi exited.
    expect(serviceStarts(dataDir)).toHaveLength(1);
    expect(ownerPid(dataDir)).toBe(serviceStarts(dataDir)[0]);
    for (const tag of ["LA", "LB"]) {
      const v = sessionView(llm.requests, tag);
      for (const r of v.mine)
        expect(pairingProblems(r.body.messages), `${tag} ${r.scenario} step ${r.step}`).toEqual([]);
      expect(v.stubbed, `${tag}: an older output arrived as a stub`).toBe(true);
      // The recovered output is the original text, with the session's own marker.
      expect(v.answer, `${tag}: recovery answered`).toMatch(new RegExp(`${tag}-1-\\d`));
    }
  });

  it("the service SIGKILLed mid-flush is restarted by the next turn, with nothing lost", {
    timeout: 600_000,
  }, async () => {
    const before = serviceStarts(dataDir);
    const killed = before.at(-1)!;
    const run = runPi(sessionHome("c"), prompts("LC"), env);
    // The reply trigger of LC1 sends a flush; kill the service while its summarizer call is open.
    await waitFor(
      "the LC flush's summarizer call",
      () =>
        llm.summarizerInFlight > 0 && llm.requests.some((r) => r.scenario === "LC1" && r.reply && "text" in r.reply),
      300_000,
      10,
    );
    process.kill(killed, "SIGKILL");
    const c = await run;
    expect(c.code, c.stderr.slice(-2000)).toBe(0);
    const starts = serviceStarts(dataDir);
    expect(starts.length).toBe(before.length + 1);
    expect(starts.at(-1)).not.toBe(killed);
    const v = sessionView(llm.requests, "LC");
    expect(v.stubbed).toBe(true);
    expect(v.answer).toMatch(/LC-1-\d/);

    await stopLocalService(dataDir);
    const db = await createDb(`pglite:${join(dataDir, "pglite")}`);
    try {
      const rows = await db.pglite!.query<{ command: string }>(
        "select args->>'command' as command from captures where result_text like 'LC-%'",
      );
      // Every bash call the model made in the session is captured (the last turn's too: pi's shutdown drains).
      expect(new Set(rows.rows.map((r) => r.command))).toEqual(new Set(v.commands));
      const flushes = await db.pglite!.query<{ outcome: string }>(
        "select m.outcome from flush_metrics m join flush_requests r on r.id = m.flush_request_id join captures c on c.session_id = r.session_id where c.result_text like 'LC-1-%' group by m.id, m.outcome",
      );
      expect(flushes.rows.length).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
