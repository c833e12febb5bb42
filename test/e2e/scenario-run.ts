/**
 * One full scripted session through the real pi agent: the first process runs P1-P5, a second process
 * resumes the same session file and runs P6. Shared by the end-to-end suite and `pnpm sample:record`.
 * `connection` is the env that points the extension at Condense: CONDENSE_URL/CONDENSE_API_KEY for a
 * fleet, nothing for the embedded service (whose data then lives under the agent dir).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeLlm } from "./fake-llm.ts";
import { preparePiHome, runPi, sessionFileIn, type PiHome, type PiRun } from "./pi-runner.ts";
import { FAKE_CONTEXT_WINDOW, FIRST_RUN_PROMPTS, RESUME_PROMPTS, SCENARIO_SETTINGS } from "./scenario.ts";

export interface ScenarioResult { home: PiHome; sessionFile: string; first: PiRun; resume: PiRun }

/** Summarizer config (worker env) that sends summaries to the fake LLM. */
export function fakeSummarizerConfig(llm: FakeLlm): string {
  return JSON.stringify({
    summarizerModel: "fake/fake-model",
    retries: 0,
    summarizerIdleTimeoutMs: 20_000,
    customModels: [{ provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" }],
  });
}

export interface ScenarioOptions {
  root?: string;
  /** Called between the first process and the resume (e.g. wait until a fleet has drained its queue). */
  betweenRuns?: () => Promise<void>;
}

export async function runScenario(llm: FakeLlm, connection: Record<string, string>, options: ScenarioOptions = {}): Promise<ScenarioResult> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), "condense-e2e-"));
  const home = preparePiHome(root, llm.baseUrl, SCENARIO_SETTINGS, FAKE_CONTEXT_WINDOW);
  const env = { ...connection, CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm) };
  const first = await runPi(home, FIRST_RUN_PROMPTS, env);
  if (first.code !== 0) throw new Error(`first pi run exited ${first.code}\n${first.stderr.slice(-4000)}`);
  const sessionFile = sessionFileIn(home.sessionDir);
  await options.betweenRuns?.();
  const resume = await runPi(home, RESUME_PROMPTS, env, ["--session", sessionFile]);
  if (resume.code !== 0) throw new Error(`resumed pi run exited ${resume.code}\n${resume.stderr.slice(-4000)}`);
  return { home, sessionFile, first, resume };
}

/** Where the embedded service keeps its PGlite database for a pi home. */
export function embeddedPgliteDir(home: PiHome): string {
  return join(home.agentDir, "condense", "data", "pglite");
}
