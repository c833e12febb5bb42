/**
 * pi's own compaction with Condense (0.73.1, headless, embedded Condense, fake LLM with a small context
 * window so pi compacts by itself): a manual `/compact` and pi's automatic compaction, then a restart.
 *
 *   process 1: CA (tool turns), (wait), manual compaction, CB (tool turns; the window makes pi compact
 *              again on its own), (wait)
 *   process 2: the same file: CC (tool turns: their turn indices come from the compacted projection,
 *              lower than the frontier the first process left), (wait), CD asks for `t1`, a ref from
 *              before both compactions, (wait)
 *
 * The question this answers (issue 16, item 3): did captures made after a compaction and a restart fall
 * under the stored turn-index frontier and get discarded? With the old frontier trim they did (CC's calls
 * were never captured); coverage by occurrence keeps them. Also: no capture stranded, no summary delivered
 * again after a compaction or for calls compacted away, and the pre-compaction ref still recovers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ancestry,
  deliveredSummaryIds,
  readService,
  readSessionFile,
  toolResultKeys,
  type ServiceRows,
} from "./branch-checks.ts";
import { startFakeLlm, textOf, type ChatBody, type FakeLlm, type Scenario } from "@condense/test-support/fake-llm";
import { drivenPi, scenarioPrompt, seqScenarios, settle } from "./driven-pi.ts";
import { preparePiHome, sessionFileIn, type PiHome } from "./pi-runner.ts";
import { pairingProblems } from "./request-checks.ts";
import { embeddedPgliteDir } from "./scenario-run.ts";

const WAIT = settle(5000);
const BASES: Record<string, number> = { CA: 100_000, CB: 200_000, CC: 300_000 };
const { tools, scenarioOfCommand } = seqScenarios(BASES, { span: 100_000, stride: 1000, width: 400 });
const queried = (body: ChatBody) =>
  body.messages.some((m) => m.tool_calls?.some((c) => c.function.name === "context_tree_query"));
const SCENARIOS: Record<string, Scenario> = {
  CA: tools("CA", 4),
  CB: tools("CB", 4),
  CC: tools("CC", 3),
  CD: (_step, body) =>
    queried(body) ? { text: "CD done." } : { calls: [{ name: "context_tree_query", args: { toolCallIds: ["t1"] } }] },
};
const prompt = scenarioPrompt;

describe("real pi + Condense with pi's compaction (manual and automatic) and a restart", () => {
  let llm: FakeLlm;
  let home: PiHome;
  let file: string;
  let service: ServiceRows;

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 200 });
    // About 500 tokens per command output: a 6000-token window with 2500 reserved compacts after a few turns.
    home = preparePiHome(mkdtempSync(join(tmpdir(), "condense-compaction-")), llm.baseUrl, { enabled: true }, 6_000, {
      compaction: { enabled: true, reserveTokens: 2_500, keepRecentTokens: 1_000 },
    });
    const drive = drivenPi(home, llm);
    await drive([prompt("CA"), WAIT, "/e2e-compact", prompt("CB"), WAIT]);
    file = sessionFileIn(home.sessionDir);
    await drive([prompt("CC"), WAIT, prompt("CD"), WAIT], ["--session", file]);
    service = await readService(embeddedPgliteDir(home));
  }, 420_000);

  afterAll(async () => {
    await llm?.close();
    if (home) rmSync(home.root, { recursive: true, force: true });
  });

  const agent = () => llm.requests.filter((r) => r.kind === "agent");

  it("pi compacted more than once (the manual command and on its own), and every request kept its pairing", () => {
    const compactions = readSessionFile(file).entries.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const r of agent()) expect(pairingProblems(r.body.messages), `${r.scenario} step ${r.step}`).toEqual([]);
  });

  it("after the compactions and the restart new calls are captured and summarized, and no capture is stranded", () => {
    const captured = new Map(service.captures.map((c) => [c.key, c.status]));
    const missing = toolResultKeys(readSessionFile(file)).filter((k) => !captured.has(k));
    expect(missing).toEqual([]);
    expect(service.captures.filter((c) => c.status === "pending")).toEqual([]);
    const summarized = new Set(service.records.map((r) => scenarioOfCommand(r.command)));
    for (const name of ["CA", "CB", "CC"]) expect(summarized.has(name), name).toBe(true);
  });

  it("no summary is delivered twice, and none after a compaction for calls that compaction removed", () => {
    const f = readSessionFile(file);
    const ids = deliveredSummaryIds(f);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of f.entries) {
      if (e.type !== "custom_message" || e.customType !== "condense-summary") continue;
      const path = ancestry(f, e.id);
      let lastCompaction = -1;
      path.forEach((a, i) => {
        if (a.type === "compaction") lastCompaction = i;
      });
      if (lastCompaction < 0) continue;
      const firstKept = (path[lastCompaction] as unknown as { firstKeptEntryId: string }).firstKeptEntryId;
      const keptFrom = path.findIndex((a) => a.id === firstKept);
      const kept = new Set(
        path
          .slice(keptFrom < 0 ? lastCompaction : keptFrom)
          .filter((a) => a.type === "message" && a.message?.role === "toolResult")
          .map((a) => `${a.message!.toolCallId}@${a.message!.timestamp}`),
      );
      const keys = (e.details?.toolCallRefs ?? []).map((r) => `${r.toolCallId}@${r.resultTimestamp}`);
      expect(
        keys.some((k) => kept.has(k)),
        `summary ${e.id} delivered after a compaction covers only compacted calls: ${keys.join(", ")}`,
      ).toBe(true);
    }
  });

  it("a ref from before the compactions still recovers the original output after the restart", () => {
    const cd = agent()
      .filter((r) => r.scenario === "CD")
      .at(-1)!;
    const msgs = cd.body.messages;
    const call = msgs.findIndex((m) => m.tool_calls?.some((c) => c.function.name === "context_tree_query"));
    expect(call).toBeGreaterThan(-1);
    const answer = textOf(msgs.slice(call + 1).find((m) => m.role === "tool")?.content);
    expect(answer).toMatch(/^## toolRef: t1\nTool: bash\nArgs: /);
    const command = (JSON.parse(/Args: (\{[\s\S]*?\n\})/.exec(answer)![1]!) as { command: string }).command;
    expect(scenarioOfCommand(command)).toBe("CA");
    const [, from, to] = /seq (\d+) (\d+)/.exec(command)!;
    const original = `${Array.from({ length: Number(to) - Number(from) + 1 }, (_, i) => String(Number(from) + i)).join("\n")}\n`;
    expect(answer.endsWith(`\n\n${original}`) || answer.endsWith(`\n\n${original.trimEnd()}`)).toBe(true);
  });
});
