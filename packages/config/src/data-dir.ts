/**
 * The data directory: one meaning everywhere. CONDENSE_DATA_DIR when set, else `<pi agent dir>/condense`
 * (the agent dir is PI_CODING_AGENT_DIR, else ~/.pi/agent). It is the root that holds `pglite/` (the
 * embedded database), the local service's socket, keys, lock and log, and the extension's spool, so
 * the API, the worker, the local service and the CLI started with no environment open one database.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { envReader, type Env } from "./env-reader.ts";

export function dataRoot(env: Env): string {
  const r = envReader(env, "data directory");
  const explicit = r.get("CONDENSE_DATA_DIR");
  if (explicit) return resolve(expandHome(explicit, home(env)));
  return join(piAgentDir(env), "condense");
}

/** pi's configuration directory: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function piAgentDir(env: Env): string {
  const agent = envReader(env, "pi agent directory").get("PI_CODING_AGENT_DIR");
  return agent ? resolve(expandHome(agent, home(env))) : join(home(env), ".pi", "agent");
}

/** HOME of the given env (so a view is a function of its env alone), else the OS's. */
function home(env: Env): string {
  return envReader(env, "home directory").get("HOME") ?? homedir();
}

/** The embedded database of a data directory: always `<data root>/pglite`. */
export function pgliteDirOf(dataDir: string): string {
  return join(resolve(dataDir), "pglite");
}

function expandHome(p: string, home: string): string {
  return p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p;
}
