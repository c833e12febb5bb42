/**
 * Every original recoverable, byte for byte, through the real pi agent (with the per-user local
 * service, stopped when the suite ends): a real
 * `seq 1 3000` through pi's bash tool (pi keeps 2,000 lines and adds its pointer to the full log) is
 * summarized, and the model pages through it with context_tree_query, following the call each cut
 * names, until the last page. The pages joined are the output the model first saw. Then a 5 MB
 * result of a tool of the test's own (pi's tools cut their output) travels out of line, is stubbed
 * because it is stored (no summary needed), and is paged back byte for byte (about a hundred 50 KiB
 * pages).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fakeSummarizerConfig,
  startFakeLlm,
  textOf,
  type ChatBody,
  type FakeLlm,
  type Scenario,
} from "@condense/test-support/fake-llm";
import { stopLocalService } from "./local-service-support.ts";
import { warmLocalService } from "./local-service-warm.ts";
import { preparePiHome, runPi, type PiHome, type PiRun } from "./pi-runner.ts";
import { answerPage, firstRawOutput, lastQueryAnswer, queryAnswers } from "./recovery-pages.ts";
import { pairingProblems } from "./request-checks.ts";
import { localDataDir } from "./scenario-run.ts";
import { bigOutputText } from "./support/big-output-extension.ts";

const BIG_BYTES = 5 * 1000 * 1000;

const bash = (command: string) => ({ name: "bash", args: { command } });

/** The ref of the first stub in the conversation whose text starts with `prefix`. */
function firstRef(body: ChatBody, prefix: string): string | null {
  for (const m of body.messages) {
    if (m.role !== "tool") continue;
    const text = textOf(m.content);
    const hit = text.startsWith(prefix) ? /ref `([^`]+)`/.exec(text) : null;
    if (hit) return hit[1]!;
  }
  return null;
}

/** Wait (with a harmless command) until a stub exists, query it, then follow every next-page call. */
const pageThrough =
  (stubPrefix: string): Scenario =>
  (step, body) => {
    const answer = lastQueryAnswer(body);
    if (answer) {
      const { next } = answerPage(answer.text);
      return next ? { calls: [{ name: "context_tree_query", args: next }] } : { text: "recovered every page" };
    }
    const ref = firstRef(body, stubPrefix);
    if (ref) return { calls: [{ name: "context_tree_query", args: { toolCallIds: [ref] } }] };
    if (step >= 40) return { text: "gave up waiting for a stub" };
    return { calls: [bash("sleep 0.5; echo waiting")] };
  };

const SCENARIOS: Record<string, Scenario> = {
  R1: (step) => (step === 0 ? { calls: [bash("seq 1 3000")] } : { text: "printed 3000 numbers" }),
  R2: pageThrough("[Condensed"),
  R3: (step) =>
    step === 0 ? { calls: [{ name: "big_output", args: { bytes: BIG_BYTES } }] } : { text: "printed five megabytes" },
  R4: pageThrough("[Oversized output stored by Condense"),
};

describe("real pi: context_tree_query pages through a long output, byte-exact", () => {
  let llm: FakeLlm;
  let root: string;
  let run: PiRun;
  let home: PiHome | undefined;
  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS });
    root = mkdtempSync(join(tmpdir(), "condense-paging-"));
    home = preparePiHome(root, llm.baseUrl, { enabled: true, recoveryGraceTurns: 3 }, 1_000_000);
    const env = { CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm) };
    // The service pi's extension would start, already running (local-service-warm.ts), with pi's env.
    await warmLocalService(home, env);
    run = await runPi(
      home,
      [
        "SCENARIO R1: print numbers",
        "SCENARIO R2: recover the numbers",
        "SCENARIO R3: print a lot",
        "SCENARIO R4: recover it",
      ],
      env,
      ["-e", join(import.meta.dirname, "support/big-output-extension.ts")],
      500_000,
    );
    if (run.code !== 0) throw new Error(`pi exited ${run.code}\n${run.stderr.slice(-4000)}`);
  }, 560_000);
  afterAll(async () => {
    if (home) await stopLocalService(localDataDir(home)).catch(() => {});
    await llm?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("pi's own truncation leaves 2,002 lines, and the pages rebuild them exactly", () => {
    const original = firstRawOutput(llm.requests, (name, args) => name === "bash" && args.command === "seq 1 3000");
    expect(original).not.toBeNull();
    expect(original!.split("\n")).toHaveLength(2002);
    expect(original!.split("\n").at(-1)).toMatch(/^\[Showing lines \d+-\d+ of \d+\. Full output: /);
    const answers = queryAnswers(llm.requests, "R2");
    expect(answers.length).toBe(2);
    const pages = answers.map((a) => answerPage(a.text));
    // The first cut names the exact call that returns the rest, and the model made that call.
    expect(pages[0]!.next).toEqual({ toolCallIds: answers[0]!.args.toolCallIds, offset: pages[0]!.page.length });
    expect(answers[1]!.args).toEqual(pages[0]!.next);
    expect(pages[1]!.next).toBeNull();
    expect(pages.map((p) => p.page).join("")).toBe(original);
  });

  it("a 5 MB tool result is stubbed as soon as it is stored and paged back byte for byte", () => {
    const expected = bigOutputText(BIG_BYTES);
    const original = firstRawOutput(llm.requests, (name) => name === "big_output");
    expect(original === expected).toBe(true);
    // R4 shows the stored stub, not a summary's "[Condensed" one: it is stubbed because it is stored.
    // The model waits for it with a harmless command (as R2 waits for the summary's): the capture now
    // travels to the local service over its socket, in parts, while pi goes on, so R4's first request
    // may come before the stored record has reached the client.
    const r4 = llm.requests.filter((r) => r.kind === "agent" && r.scenario === "R4");
    const stub = r4
      .flatMap((r) => r.body.messages.map((m) => textOf(m.content)))
      .find((t) => t.startsWith("[Oversized output stored by Condense"));
    expect(stub).toBeDefined();
    const answers = queryAnswers(llm.requests, "R4");
    const pages = answers.map((a) => answerPage(a.text));
    expect(pages.length).toBeGreaterThan(90);
    for (let i = 1; i < answers.length; i++) expect(answers[i]!.args).toEqual(pages[i - 1]!.next);
    expect(pages.at(-1)!.next).toBeNull();
    const rebuilt = pages.map((p) => p.page).join("");
    expect(rebuilt.length).toBe(expected.length);
    expect(rebuilt === expected).toBe(true);
  });

  it("every request kept its tool pairing", () => {
    for (const r of llm.requests.filter((x) => x.kind === "agent"))
      expect(pairingProblems(r.body.messages)).toEqual([]);
  });
});
