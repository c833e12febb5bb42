/**
 * What the branch and compaction suites share: headless pi runs with the tree-driver extension loaded
 * beside Condense (its commands move in the tree, compact and settle between prompts), summaries sent
 * to the fake LLM, and scenarios whose commands print numbers from a range of their own, so a command
 * names the scenario (and so the branch) it was run on.
 */
import { join } from "node:path";
import { fakeSummarizerConfig, type FakeLlm, type Scenario } from "@condense/test-support/fake-llm";
import { REPO, runPi, type PiHome, type PiRun } from "./pi-runner.ts";

const DRIVER = join(REPO, "test/e2e/tree-driver.extension.ts");

/** The prompt that starts scenario `name` on the fake LLM. */
export const scenarioPrompt = (name: string) => `SCENARIO ${name}: run the commands`;

/** A prompt that waits `ms`, then until the local service has no flush request queued. */
export const settle = (ms: number) => `/e2e-settle ${ms}`;

/**
 * Runs pi with the driver on `prompts` (more arguments before them, e.g. `--session`, `--fork`), the
 * summarizer pointed at the fake LLM; throws with pi's stderr when it exits non-zero.
 */
export function drivenPi(home: PiHome, llm: FakeLlm): (prompts: string[], extraArgs?: string[]) => Promise<PiRun> {
  const env = { CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm) };
  return async (prompts, extraArgs = []) => {
    const run = await runPi(home, prompts, env, ["-e", DRIVER, ...extraArgs]);
    if (run.code !== 0) throw new Error(`pi exited ${run.code}\n${run.stderr.slice(-4000)}`);
    return run;
  };
}

/**
 * Scenarios of `seq` commands: scenario X's step n runs `seq from from+width` with
 * from = bases[X] + n * stride, for `turns` steps, then answers "X done.". A command belongs to the
 * scenario whose range [base, base + span) holds its first number.
 */
export function seqScenarios(
  bases: Record<string, number>,
  shape: { span: number; stride: number; width: number },
): { tools: (name: string, turns: number) => Scenario; scenarioOfCommand: (command: string) => string | null } {
  return {
    tools: (name, turns) => (step) => {
      if (step >= turns) return { text: `${name} done.` };
      const from = bases[name]! + step * shape.stride;
      return { calls: [{ name: "bash", args: { command: `seq ${from} ${from + shape.width}` } }] };
    },
    scenarioOfCommand: (command) => {
      const n = Number(/seq (\d+)/.exec(command)?.[1]);
      return Object.entries(bases).find(([, base]) => n >= base && n < base + shape.span)?.[0] ?? null;
    },
  };
}
