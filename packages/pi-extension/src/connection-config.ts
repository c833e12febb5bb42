/**
 * How the extension reaches Condense: a fleet API when CONDENSE_URL is set (with CONDENSE_API_KEY),
 * otherwise the embedded service in this process, with its data under the agent dir.
 */
import { join } from "node:path";
import { agentDir } from "./agent-dir.ts";

export type ConnectionConfig =
  | { mode: "fleet"; url: string; apiKey: string }
  | { mode: "embedded"; dataDir: string };

export function connectionFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionConfig {
  const url = env.CONDENSE_URL?.trim();
  if (url) return { mode: "fleet", url, apiKey: env.CONDENSE_API_KEY?.trim() ?? "" };
  const dataDir = env.CONDENSE_DATA_DIR?.trim() || join(agentDir(env), "condense", "data");
  return { mode: "embedded", dataDir };
}
