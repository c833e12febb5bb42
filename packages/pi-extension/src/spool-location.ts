/**
 * Where the crash spool of unacknowledged captures lives: in Condense's own directory
 * (`$CONDENSE_DATA_DIR/spool`, else `~/.pi/agent/condense/spool`), one `<piSessionId>.spool` file per pi
 * session file. Earlier versions wrote `<sessionId>.condense-spool.jsonl` into pi's session directory,
 * where pi and every tool that lists sessions scan for `*.jsonl` and a spool is not a session; those
 * files are moved here on start (their pending captures appended to the new spool, which the client
 * reads and resends, then the old file removed).
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CaptureSpool } from "@condense/client";
import { dataRoot, processEnv, type Env } from "@condense/config";

export const LEGACY_SPOOL_SUFFIX = ".condense-spool.jsonl";

export function spoolDir(env: Env = processEnv()): string {
  return join(dataRoot(env), "spool");
}

export function spoolPath(piSessionId: string, env: Env = processEnv()): string {
  return join(spoolDir(env), `${encodeURIComponent(piSessionId)}.spool`);
}

/**
 * Move every legacy spool in pi's session directory into Condense's spool directory. Returns the
 * session ids moved. A file that cannot be read is left where it is (nothing is lost by trying again).
 */
export function migrateLegacySpools(sessionDir: string | undefined, env: Env = processEnv()): string[] {
  if (!sessionDir || !existsSync(sessionDir)) return [];
  const moved: string[] = [];
  let names: string[];
  try {
    names = readdirSync(sessionDir);
  } catch {
    return [];
  }
  for (const name of names) {
    if (!name.endsWith(LEGACY_SPOOL_SUFFIX)) continue;
    const id = name.slice(0, -LEGACY_SPOOL_SUFFIX.length);
    const from = join(sessionDir, name);
    try {
      const pending = new CaptureSpool(from).readPending();
      const to = new CaptureSpool(spoolPath(id, env));
      // Appending keeps whatever the new spool already holds; a capture id present in both is resent
      // once (the outbox keys by capture id) and the service dedups by occurrence anyway.
      for (const p of pending) to.append(p);
      rmSync(from, { force: true });
      for (const n of names)
        if (n.startsWith(`${name}.`) && n.endsWith(".tmp")) rmSync(join(sessionDir, n), { force: true });
      moved.push(id);
    } catch {
      /* left for the next start */
    }
  }
  return moved;
}
