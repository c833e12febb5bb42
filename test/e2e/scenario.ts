/**
 * The scripted agent session the end-to-end suite (and `pnpm sample:record`) drives through the real
 * pi agent: four short closed chains (P1-P4, one with a failing command and parallel calls), one long
 * single chain (P5) that recovers an older output with context_tree_query, and, in a second process
 * resuming the same session file, P6 (then short P7 turns, in further processes, when a suite asks).
 * Tool-call ids restart at call_1 in every response, as real providers do, so ids repeat across the
 * whole session. Every command's output is deterministic.
 */
import { textOf, type ChatBody, type Scenario, type ScriptedReply } from "@condense/test-support/fake-llm";

const bash = (command: string) => ({ name: "bash", args: { command } });
/** `seq a b` prints one number per line: about 5 chars a line here, so 300 numbers is ~1.5k chars. */
const seq = (from: number, to: number) => bash(`seq ${from} ${to}`);

/** The first `tN` ref a stub in the conversation points at, so the model asks for something real. */
export function firstStubRef(body: ChatBody): string {
  for (const m of body.messages) {
    if (m.role !== "tool") continue;
    const hit = /ref `(t\d+)`/.exec(textOf(m.content));
    if (hit) return hit[1]!;
  }
  return "t1";
}

function isAfterLastScenario(body: ChatBody, target: ChatBody["messages"][number]): boolean {
  let start = -1;
  body.messages.forEach((m, i) => {
    if (m.role === "user" && textOf(m.content).startsWith("SCENARIO ")) start = i;
  });
  return body.messages.indexOf(target) > start;
}

/** True when every tool output before the P5 prompt is a stub (or gone into a compressed chain). */
export function olderOutputsCondensed(body: ChatBody): boolean {
  const start = body.messages.findIndex((m) => m.role === "user" && textOf(m.content).startsWith("SCENARIO P5"));
  if (start < 0) return false;
  return body.messages.slice(0, start).every((m) => m.role !== "tool" || textOf(m.content).startsWith("[Condensed"));
}

const steps =
  (list: ScriptedReply[]): Scenario =>
  (step) =>
    list[Math.min(step, list.length - 1)]!;

// A long argument, so the error purge has something to purge (minArgChars 500).
const FAILING = `echo 'ERROR: build failed at step 3' >&2; seq 1 40; exit 3 # ${"padding ".repeat(80)}`;

/** How long P5 waits for the first stubs before it recovers anyway: about 40 x 0.35 s of commands. */
const P5_STUB_WAIT_STEPS = 40;

export const SCENARIOS: Record<string, Scenario> = {
  P1: steps([
    { calls: [seq(1, 300)] },
    { calls: [seq(301, 600)] },
    { calls: [seq(601, 900)] },
    { text: "P1 done: three ranges inspected." },
  ]),
  P2: steps([
    { calls: [seq(1000, 1300), bash(FAILING)] },
    { calls: [seq(1300, 1600)] },
    { text: "P2 done: the build fails at step 3." },
  ]),
  P3: steps([{ calls: [seq(2000, 2300)] }, { calls: [seq(2300, 2600)] }, { text: "P3 done." }]),
  P4: steps([{ calls: [seq(3000, 3300), seq(3300, 3600)] }, { text: "P4 done." }]),
  // One long chain: slow-ish commands, and once stubs exist the model recovers one of them. It keeps
  // working until they exist (up to P5_STUB_WAIT_STEPS steps): the first flush needs a few summarizer
  // rounds of SUMMARIZER_DELAY_MS each, and on a loaded machine that outlasts a fixed short chain.
  P5: (step, body) => {
    const queried = body.messages.some(
      (m) => m.tool_calls?.some((c) => c.function.name === "context_tree_query") && isAfterLastScenario(body, m),
    );
    const stubbed = body.messages.some((m) => m.role === "tool" && /ref `t\d+`/.test(textOf(m.content)));
    if (!queried && step >= 6 && (stubbed || step >= P5_STUB_WAIT_STEPS))
      return { calls: [{ name: "context_tree_query", args: { toolCallIds: [firstStubRef(body)] } }] };
    if ((queried && step >= 12) || step >= P5_STUB_WAIT_STEPS + 4)
      return { text: "P5 done: the long task is finished." };
    const from = 5000 + step * 500;
    return { calls: [bash(`sleep 0.3; seq ${from} ${from + 499}`)] };
  },
  // After the resume: keep working (slowly) until the service has condensed everything before the long
  // chain, or give up at step 16; then recover one output and finish.
  P6: (step, body) => {
    const queried = body.messages.some(
      (m) => m.tool_calls?.some((c) => c.function.name === "context_tree_query") && isAfterLastScenario(body, m),
    );
    if (queried)
      return step >= 2 &&
        body.messages.at(-1)?.role === "tool" &&
        !/^## toolRef/.test(textOf(body.messages.at(-1)!.content))
        ? { text: "P6 done after the resume." }
        : { calls: [seq(9000, 9300)] };
    if (olderOutputsCondensed(body) || step >= 16)
      return { calls: [{ name: "context_tree_query", args: { toolCallIds: [firstStubRef(body)] } }] };
    return { calls: [bash(`sleep 0.5; seq ${20000 + step * 300} ${20000 + step * 300 + 299}`)] };
  },
  // A short turn after the resume: one command, then done.
  P7: steps([{ calls: [seq(9500, 9600)] }, { text: "P7 done." }]),
};

export const FIRST_RUN_PROMPTS = [
  "SCENARIO P1: inspect three ranges of numbers",
  "SCENARIO P2: run the build and see why it fails",
  "SCENARIO P3: inspect two more ranges",
  "SCENARIO P4: inspect two ranges in parallel",
  "SCENARIO P5: a long task in one go",
];
export const RESUME_PROMPTS = ["SCENARIO P6: recover an older output after the resume"];
/** One more short turn in the resumed session (ScenarioOptions.moreTurns in scenario-run.ts). */
export const SHORT_TURN_PROMPT = "SCENARIO P7: one more short turn";

/** Condense settings for the scenario: a small budget so the budget trigger fires inside P5. */
export const SCENARIO_SETTINGS = {
  enabled: true,
  // The scenario checks every trigger path, the reply trigger included: today's eager policy.
  flushPolicy: "eager",
  autoBudgetThreshold: 0.5,
  recoveryGraceTurns: 3,
  chainCompression: { enabled: true, rollingWindow: 3 },
};

/** The fake model's context window: budget = 0.5 x 16000 = 8000 tokens (~32k chars of request). */
export const FAKE_CONTEXT_WINDOW = 16_000;
