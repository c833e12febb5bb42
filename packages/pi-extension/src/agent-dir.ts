/** Where pi keeps its configuration: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (resolved on every use). */
import { join } from "node:path";
import { piAgentDir, processEnv, type Env } from "@condense/config";

export function agentDir(env: Env = processEnv()): string {
  return piAgentDir(env);
}

export function settingsPath(env: Env = processEnv()): string {
  return join(agentDir(env), "settings.json");
}
