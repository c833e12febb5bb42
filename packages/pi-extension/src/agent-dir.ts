/** Where pi keeps its configuration: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (resolved on every use). */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.PI_CODING_AGENT_DIR?.trim();
  if (dir) return resolve(dir.startsWith("~/") ? join(homedir(), dir.slice(2)) : dir);
  return join(homedir(), ".pi", "agent");
}

export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(agentDir(env), "settings.json");
}
