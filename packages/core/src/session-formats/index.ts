/** Readers for the session files of other coding agents, and format detection over all of them. */
export * from "./types.ts";
export { readClaudeCodeSession } from "./claude-code.ts";
export { readCodexSession } from "./codex-cli.ts";
export { readSweAgentTrajectory } from "./swe-agent.ts";
export { detectSessionFormat, readAnySession, SUPPORTED_SESSION_FORMATS, type AnySessionResult } from "./detect.ts";
