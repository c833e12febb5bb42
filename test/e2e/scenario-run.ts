/**
 * One full scripted session through the real pi agent: the first process runs P1-P5, a second process
 * resumes the same session file and runs P6 (then, when asked, short P7 turns in further processes).
 * Shared by the end-to-end suite and `pnpm sample:record`.
 * `connection` is the env that points the extension at Condense: CONDENSE_URL/CONDENSE_API_KEY for a
 * fleet, nothing for the per-user local service (whose data then lives under the agent dir).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeSummarizerConfig, type FakeLlm } from "@condense/test-support/fake-llm";
import { preparePiHome, runPi, sessionFileIn, type PiHome, type PiRun } from "./pi-runner.ts";
import {
  FAKE_CONTEXT_WINDOW,
  FIRST_RUN_PROMPTS,
  RESUME_PROMPTS,
  SCENARIO_SETTINGS,
  SHORT_TURN_PROMPT,
} from "./scenario.ts";

export interface ScenarioResult {
  home: PiHome;
  sessionFile: string;
  first: PiRun;
  resume: PiRun;
  /** The short turns run after the resume (ScenarioOptions.moreTurns), each its own pi process. */
  more: PiRun[];
}

export interface ScenarioOptions {
  root?: string;
  /** Called between the first process and the resume (e.g. wait until a fleet has drained its queue). */
  betweenRuns?: (sessionId: string) => Promise<void>;
  /**
   * After the resume, while `until()` is false, up to `max` more short turns in the same session, each
   * a new pi process, as a user would send one more message when what they wait for has not shown yet.
   */
  moreTurns?: { max: number; until: () => boolean };
}

export async function runScenario(
  llm: FakeLlm,
  connection: Record<string, string>,
  options: ScenarioOptions = {},
): Promise<ScenarioResult> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), "condense-e2e-"));
  const home = preparePiHome(root, llm.baseUrl, SCENARIO_SETTINGS, FAKE_CONTEXT_WINDOW);
  const env = { ...connection, CONDENSE_SUMMARIZER_CONFIG: fakeSummarizerConfig(llm) };
  const first = await runPi(home, FIRST_RUN_PROMPTS, env);
  if (first.code !== 0) throw new Error(`first pi run exited ${first.code}\n${first.stderr.slice(-4000)}`);
  const sessionFile = sessionFileIn(home.sessionDir);
  await options.betweenRuns?.(sessionIdOf(sessionFile));
  const resume = await runPi(home, RESUME_PROMPTS, env, ["--session", sessionFile]);
  if (resume.code !== 0) throw new Error(`resumed pi run exited ${resume.code}\n${resume.stderr.slice(-4000)}`);
  const more: PiRun[] = [];
  while (options.moreTurns && more.length < options.moreTurns.max && !options.moreTurns.until()) {
    const run = await runPi(home, [SHORT_TURN_PROMPT], env, ["--session", sessionFile]);
    if (run.code !== 0) throw new Error(`short pi turn exited ${run.code}\n${run.stderr.slice(-4000)}`);
    more.push(run);
  }
  if (more.length > 0) console.info(`scenario: ${more.length} short turn(s) after the resume`);
  return { home, sessionFile, first, resume, more };
}

/** The local service's data directory for a pi home (the extension's default). */
export function localDataDir(home: PiHome): string {
  return join(home.agentDir, "condense");
}

/** Where the local service keeps its PGlite database for a pi home. */
export function embeddedPgliteDir(home: PiHome): string {
  return join(localDataDir(home), "pglite");
}

/** The session id of a pi session file (its header line), which is Condense's session id. */
export function sessionIdOf(sessionFile: string): string {
  const header = JSON.parse(readFileSync(sessionFile, "utf8").split("\n", 1)[0]!) as { id: string };
  return header.id;
}
