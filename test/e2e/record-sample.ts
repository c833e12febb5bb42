/**
 * `pnpm sample:record`: regenerates examples/sample-session.jsonl, the project's own sample pi session.
 * It is the session file of the end-to-end scenario run in embedded mode against the fake LLM (no
 * third-party data): the same prompts, tool calls and outputs every time; only pi's entry ids and
 * timestamps differ between recordings.
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm } from "@condense/test-support/fake-llm";
import { REPO } from "./pi-runner.ts";
import { SCENARIOS } from "./scenario.ts";
import { runScenario } from "./scenario-run.ts";

const target = join(REPO, "examples", "sample-session.jsonl");
const llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 2_000 });
try {
  const result = await runScenario(llm, {});
  mkdirSync(join(REPO, "examples"), { recursive: true });
  copyFileSync(result.sessionFile, target);
  rmSync(result.home.root, { recursive: true, force: true });
  const agent = llm.requests.filter((r) => r.kind === "agent").length;
  const summarizer = llm.requests.filter((r) => r.kind !== "agent").length;
  console.log(`wrote ${target} (${agent} agent requests, ${summarizer} summarizer requests)`);
} finally {
  await llm.close();
}
