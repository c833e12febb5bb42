/**
 * Branches of a real pi session (0.73.1, headless `--mode json`, embedded Condense, a fake
 * OpenAI-compatible LLM): `/tree` navigation back to an earlier turn, a `--fork` of the session file,
 * and a return to the abandoned branch, each continued with new tool calls.
 *
 *   process 1: BA, BB, (settle), /tree to before BB, BC (a rewound branch: lower turn indices than the
 *              frontier BB left), (wait), BD
 *   process 2: pi --fork <file>: BE, (wait), BF on the copy
 *   process 3: the original file again, /tree back onto BB's branch: BG, (wait), BH
 *
 * Checked from what the fake LLM received, the session files and the service's database: tool pairing
 * in every request; every stub and every summary in a request names a call made on that request's own
 * branch; no summary message in a file covers an occurrence that is not on its own path; every tool
 * result of every branch (fork included) was captured, in one Condense session; no occurrence was
 * summarized twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliveredSummaryIds,
  foreignSummaryEntries,
  readService,
  readSessionFile,
  stubbedCalls,
  summaryRefsIn,
  toolResultKeys,
  type ServiceRows,
} from "./branch-checks.ts";
import { startFakeLlm, type FakeLlm, type RecordedRequest, type Scenario } from "@condense/test-support/fake-llm";
import { drivenPi, scenarioPrompt, seqScenarios, settle } from "./driven-pi.ts";
import { preparePiHome, sessionFilesIn, type PiHome } from "./pi-runner.ts";
import { pairingProblems } from "./request-checks.ts";
import { embeddedPgliteDir } from "./scenario-run.ts";
import { readdirSync } from "node:fs";

const WAIT = settle(4000);

/** Each scenario's commands print numbers from its own thousand: the command names its branch. */
const BASES: Record<string, number> = {
  BA: 10_000,
  BB: 20_000,
  BC: 30_000,
  BD: 40_000,
  BE: 50_000,
  BF: 60_000,
  BG: 70_000,
  BH: 80_000,
};
const { tools, scenarioOfCommand } = seqScenarios(BASES, { span: 10_000, stride: 400, width: 300 });
const SCENARIOS: Record<string, Scenario> = Object.fromEntries(
  Object.keys(BASES).map((k) => [k, tools(k, k === "BD" || k === "BF" || k === "BH" ? 1 : 3)]),
);

/** Which scenarios are on the branch a request of `scenario` was sent from. */
const BRANCH_OF: Record<string, string[]> = {
  BA: ["BA"],
  BB: ["BA", "BB"],
  BC: ["BA", "BC"],
  BD: ["BA", "BC", "BD"],
  BE: ["BA", "BC", "BD", "BE"],
  BF: ["BA", "BC", "BD", "BE", "BF"],
  BG: ["BA", "BB", "BG"],
  BH: ["BA", "BB", "BG", "BH"],
};

const prompt = scenarioPrompt;

describe("real pi + Condense across /tree navigation and a fork", () => {
  let llm: FakeLlm;
  let home: PiHome;
  let original: string;
  let fork: string;
  let service: ServiceRows;

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 200 });
    home = preparePiHome(
      mkdtempSync(join(tmpdir(), "condense-branches-")),
      llm.baseUrl,
      { enabled: true, chainCompression: { enabled: true, rollingWindow: 1 } },
      128_000,
    );
    const drive = drivenPi(home, llm);
    await drive([
      prompt("BA"),
      prompt("BB"),
      WAIT,
      `/e2e-tree user ${prompt("BB")}`,
      prompt("BC"),
      WAIT,
      prompt("BD"),
      WAIT,
    ]);
    original = sessionFilesIn(home.sessionDir)[0]!;
    await drive([prompt("BE"), WAIT, prompt("BF"), WAIT], ["--fork", original]);
    fork = sessionFilesIn(home.sessionDir).find((f) => f !== original)!;
    await drive([`/e2e-tree leaf ${prompt("BB")}`, prompt("BG"), WAIT, prompt("BH"), WAIT], ["--session", original]);
    service = await readService(embeddedPgliteDir(home));
  }, 420_000);

  afterAll(async () => {
    await llm?.close();
    if (home) rmSync(home.root, { recursive: true, force: true });
  });

  const agent = () => llm.requests.filter((r) => r.kind === "agent");

  it("drove every branch: each scenario's requests reached the fake LLM", () => {
    const seen = new Set(agent().map((r) => r.scenario));
    for (const name of Object.keys(BASES)) expect(seen.has(name), name).toBe(true);
    expect(fork).toBeDefined();
    expect(readSessionFile(fork).header.parentSession).toBe(original);
    // pi's session directory holds the two session files and nothing of Condense's.
    expect(
      readdirSync(home.sessionDir, { recursive: true })
        .map(String)
        .filter((f) => !f.endsWith(".jsonl") || f.includes("spool")),
    ).toEqual([]);
    expect(sessionFilesIn(home.sessionDir)).toHaveLength(2);
  });

  it("every request has valid tool pairing", () => {
    for (const r of agent()) expect(pairingProblems(r.body.messages), `${r.scenario} step ${r.step}`).toEqual([]);
  });

  it("stubs and summaries in a request name only calls made on that request's branch", () => {
    const commandOfRef = new Map(service.records.filter((x) => x.shortRef).map((x) => [x.shortRef!, x.command]));
    const check = (r: RecordedRequest, what: string, command: string | undefined) => {
      const owner = command ? scenarioOfCommand(command) : null;
      expect(owner, `${what} in ${r.scenario} step ${r.step}`).not.toBeNull();
      expect(BRANCH_OF[r.scenario!], `${what} (${command}) in ${r.scenario} step ${r.step}`).toContain(owner);
    };
    let stubs = 0;
    let summaryRefs = 0;
    for (const r of agent()) {
      for (const s of stubbedCalls(r.body.messages)) {
        stubs++;
        // The stub's ref is the record of the very call it replaces.
        expect(commandOfRef.get(s.ref), `stub ${s.ref} in ${r.scenario}`).toBe(s.command);
        check(r, `stub ${s.ref}`, s.command);
      }
      for (const ref of summaryRefsIn(r.body.messages)) {
        summaryRefs++;
        check(r, `summary ref ${ref}`, commandOfRef.get(ref));
      }
    }
    // The checks had something to check on the rewound branch, the fork and the returned branch.
    expect(stubs).toBeGreaterThan(0);
    expect(summaryRefs).toBeGreaterThan(0);
    for (const name of ["BD", "BF", "BH"]) {
      const last = agent()
        .filter((r) => r.scenario === name)
        .at(-1)!;
      expect(stubbedCalls(last.body.messages).length, `stubs in ${name}`).toBeGreaterThan(0);
    }
  });

  it("no summary message in either file covers an occurrence off its own path, and none is delivered twice on a path", () => {
    for (const path of [original, fork]) {
      const file = readSessionFile(path);
      expect(foreignSummaryEntries(file), path).toEqual([]);
      expect(deliveredSummaryIds(file).length, path).toBeGreaterThan(0);
    }
  });

  it("one Condense session serves the file and its fork; every tool result of every branch was captured, none summarized twice", () => {
    const originalId = readSessionFile(original).header.id;
    expect(service.sessions).toEqual([originalId]);
    const captured = new Set(service.captures.map((c) => c.key));
    const all = new Set([...toolResultKeys(readSessionFile(original)), ...toolResultKeys(readSessionFile(fork))]);
    const missing = [...all].filter((k) => !captured.has(k));
    expect(missing).toEqual([]);
    // The rewound branch's calls (below BB's frontier by turn index) were captured and summarized.
    const summarizedCommands = new Set(service.records.map((r) => scenarioOfCommand(r.command)));
    for (const name of ["BC", "BE", "BG"]) expect(summarizedCommands.has(name), name).toBe(true);
    const covered = service.summaries.flatMap((s) => s.coverage);
    expect(new Set(covered).size).toBe(covered.length);
  });
});
