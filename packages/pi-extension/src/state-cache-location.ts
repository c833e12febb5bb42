/**
 * Where the last applied state of a Condense session is cached: beside the spool, in Condense's own
 * directory (`$CONDENSE_DATA_DIR/state`, else `~/.pi/agent/condense/state`), one file per service
 * identity and session. The identity names the service the state came from (the fleet URL and a hash
 * of its API key, which selects the tenant; or the local service's data directory), so a state never
 * crosses tenants or services; it is also stored inside the file and checked on read.
 */
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { StateCache } from "@condense/client";
import { processEnv, type Env } from "@condense/config";
import type { ConnectionConfig } from "./connection-config.ts";
import { extensionConfig } from "./extension-config.ts";
import { spoolDir } from "./spool-location.ts";

export function stateCacheDir(env: Env = processEnv()): string {
  return join(dirname(spoolDir(env)), "state");
}

/** The service a state belongs to; never holds the API key itself. */
export function stateCacheIdentity(connection: ConnectionConfig): string {
  if (connection.mode === "fleet") {
    const key = createHash("sha256").update(connection.apiKey).digest("hex").slice(0, 16);
    return `fleet:${connection.url.replace(/\/+$/, "")}#${key}`;
  }
  return `local:${resolve(connection.dataDir)}`;
}

export function stateCachePath(identity: string, sessionId: string, env: Env = processEnv()): string {
  const id = createHash("sha256").update(identity).digest("hex").slice(0, 12);
  return join(stateCacheDir(env), `${encodeURIComponent(sessionId)}.${id}.json`);
}

/** The cache for one session, or none when `CONDENSE_STATE_CACHE=0`. */
export function openStateCache(
  connection: ConnectionConfig,
  sessionId: string,
  onWriteError: (error: unknown) => void,
  env: Env = processEnv(),
): StateCache | undefined {
  if (!extensionConfig(env).stateCache) return undefined;
  const identity = stateCacheIdentity(connection);
  return new StateCache(stateCachePath(identity, sessionId, env), identity, sessionId, onWriteError);
}
