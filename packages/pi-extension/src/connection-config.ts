/**
 * How the extension reaches Condense: a fleet API when CONDENSE_URL is set (with CONDENSE_API_KEY),
 * otherwise the per-user local service over the Unix socket in its data directory (CONDENSE_DATA_DIR,
 * else `<agent dir>/condense`), which the extension starts detached when none answers.
 */
import type { ConnectionConfig, Env } from "@condense/config";
import { extensionConfig } from "./extension-config.ts";

export type { ConnectionConfig } from "@condense/config";

export function connectionFromEnv(env?: Env): ConnectionConfig {
  return extensionConfig(env).connection;
}
