/**
 * Which Condense session a pi session file belongs to. `/fork` (and `pi --fork`) copies a path of the
 * session tree into a new file with a new id and `parentSession` pointing at the old file. The copied
 * entries keep their occurrence keys, and their summary messages name refs of the parent's Condense
 * session, so the fork continues that Condense session: a fresh one would re-summarize the copied calls
 * under new refs while the copied summaries still point at the old ones. One Condense session therefore
 * serves a whole fork family, like it serves every branch of one file; branch scoping keeps each branch's
 * context to its own occurrences.
 *
 * The link is found, in order: a `condense-session` entry on the current path (written the first time a
 * fork is opened, so the link survives the parent file being deleted), else the `parentSession` headers
 * followed to the oldest file still readable, else the file's own id.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";

export const SESSION_LINK_ENTRY = "condense-session";

export interface SessionLink {
  /** The Condense session id to use. */
  sessionId: string;
  /** True when the link was resolved from the headers and is not yet recorded on the path. */
  unrecorded: boolean;
}

interface Header {
  id?: unknown;
  parentSession?: unknown;
}

/** The header line of a session file (its first line), or null when it cannot be read. */
export function readSessionHeader(path: string): Header | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const nl = text.indexOf("\n");
    const parsed: unknown = JSON.parse(nl === -1 ? text : text.slice(0, nl));
    return parsed && typeof parsed === "object" ? (parsed as Header) : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Follow `parentSession` headers; the id of the oldest readable ancestor, or null when there is none. */
export function rootAncestorId(
  parentPath: string | undefined,
  readHeader = readSessionHeader,
  maxHops = 64,
): string | null {
  let found: string | null = null;
  const seen = new Set<string>();
  let next = parentPath;
  while (next && !seen.has(next) && seen.size < maxHops) {
    seen.add(next);
    const h = readHeader(next);
    if (!h || typeof h.id !== "string") break;
    found = h.id;
    next = typeof h.parentSession === "string" ? h.parentSession : undefined;
  }
  return found;
}

export function resolveSessionLink(
  ctx: Pick<ExtensionContext, "sessionManager">,
  readHeader = readSessionHeader,
): SessionLink {
  const sm = ctx.sessionManager;
  const own = sm.getSessionId();
  try {
    for (const e of sm.getBranch()) {
      if (e.type !== "custom" || e.customType !== SESSION_LINK_ENTRY) continue;
      const id = (e.data as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof id === "string" && id.length > 0) return { sessionId: id, unrecorded: false };
    }
  } catch {
    /* no branch yet */
  }
  let parent: string | undefined;
  try {
    parent = sm.getHeader()?.parentSession;
  } catch {
    parent = undefined;
  }
  const root = rootAncestorId(parent, readHeader);
  return root && root !== own ? { sessionId: root, unrecorded: true } : { sessionId: own, unrecorded: false };
}
