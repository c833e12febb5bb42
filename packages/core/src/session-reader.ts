/**
 * Tolerant reader of pi session JSONL (v1 file order, v3 id/parentId tree). Input is the file TEXT (core
 * does no I/O). Output is the message array pi's `context` hook would see for the current leaf, plus
 * what was skipped and why. Real files break every rule a strict parser assumes (two objects on one
 * physical line, a line with an invalid escape, no header, a tree whose root is missing), so nothing
 * here throws.
 */
import { parseJsonLines, type JsonLine, type SkippedLine } from "./json-lines.ts";
import { isObject, type AgentMessage } from "./messages.ts";

export { splitObjects, type SkippedLine } from "./json-lines.ts";

export interface SessionReadOptions {
  /**
   * `apply` (default) = pi's view: the latest compaction on the path becomes a `compactionSummary`
   * message followed by the kept entries. `ignore` = the full history of the path, compactions
   * dropped (what a session looked like before pi compacted it; used by benchmarks and replays).
   */
  compaction?: "apply" | "ignore";
}

export interface SessionReadResult {
  messages: AgentMessage[];
  header: Record<string, unknown> | null;
  skipped: SkippedLine[];
  /** Header `version`, else 3 when entries carry ids, else 1. */
  version: number;
  /** Parsed entries (header excluded) and how many lie on the current path. */
  entryCount: number;
  pathLength: number;
}

type ParsedEntry = JsonLine;

export function readPiSession(text: string, options: SessionReadOptions = {}): SessionReadResult {
  const skipped: SkippedLine[] = [];
  const all: ParsedEntry[] = [];
  /** ids salvaged from unparseable lines, so the tree walk can step over a lost entry. */
  const lostLinks = new Map<string, string | null>();
  try {
    parseLines(typeof text === "string" ? text : "", all, skipped, lostLinks);
  } catch (err) {
    skipped.push({ line: 0, reason: `reader failure: ${String(err)}` });
  }

  let header: Record<string, unknown> | null = null;
  const entries: ParsedEntry[] = [];
  for (const e of all) {
    if (e.value.type === "session" && header === null && entries.length === 0) header = e.value;
    else if (e.value.type === "session") skipped.push({ line: e.line, reason: "extra session header" });
    else entries.push(e);
  }
  const hasIds = entries.some((e) => typeof e.value.id === "string");
  const headerVersion = header && typeof header.version === "number" ? header.version : undefined;
  const version = headerVersion ?? (hasIds ? 3 : 1);

  const path = version >= 2 && hasIds ? treePath(entries, lostLinks, skipped) : entries;
  const messages = project(path, all, options.compaction ?? "apply", skipped);
  return { messages, header, skipped, version, entryCount: entries.length, pathLength: path.length };
}

function parseLines(
  text: string,
  out: ParsedEntry[],
  skipped: SkippedLine[],
  lostLinks: Map<string, string | null>,
): void {
  // An unparseable entry still lends its id/parentId to the tree walk, so the path survives its loss.
  const lines = parseJsonLines(text, skipped, (chunk) => {
    const link = salvageLink(chunk);
    if (!link) return undefined;
    lostLinks.set(link.id, link.parentId);
    return "tree link kept";
  });
  for (const l of lines) out.push(l);
}

/** Top-level `id` / `parentId` from the head of an unparseable entry, so the path survives its loss. */
function salvageLink(text: string): { id: string; parentId: string | null } | null {
  const head = text.slice(0, 400);
  const id = /^\{[^{]*?"id"\s*:\s*"([^"\\]+)"/.exec(head);
  if (!id) return null;
  const parent = /^\{[^{]*?"parentId"\s*:\s*(?:null|"([^"\\]*)")/.exec(head);
  if (!parent) return null;
  return { id: id[1]!, parentId: parent[1] ?? null };
}

/**
 * The current branch of a v3 tree: from the last entry (pi's leaf after load) back through `parentId`.
 * A parent that is neither an entry nor a salvaged lost line ends the walk (a file that starts
 * mid-tree); a cycle ends it too.
 */
function treePath(
  entries: ParsedEntry[],
  lostLinks: Map<string, string | null>,
  skipped: SkippedLine[],
): ParsedEntry[] {
  const byId = new Map<string, ParsedEntry>();
  for (const e of entries) if (typeof e.value.id === "string") byId.set(e.value.id, e);
  let leaf: ParsedEntry | undefined;
  for (let i = entries.length - 1; i >= 0 && !leaf; i--)
    if (typeof entries[i]!.value.id === "string") leaf = entries[i];
  const path: ParsedEntry[] = [];
  const seen = new Set<string>();
  let cur: string | null | undefined = leaf ? (leaf.value.id as string) : undefined;
  while (typeof cur === "string" && !seen.has(cur)) {
    seen.add(cur);
    const e = byId.get(cur);
    if (e) {
      path.push(e);
      const p = e.value.parentId;
      cur = typeof p === "string" ? p : null;
    } else if (lostLinks.has(cur)) {
      cur = lostLinks.get(cur);
    } else {
      skipped.push({ line: 0, reason: `path starts mid-tree: parent ${cur} is not in the file` });
      break;
    }
  }
  path.reverse();
  return path;
}

function isoMs(ts: unknown): number | undefined {
  if (typeof ts === "number" && Number.isFinite(ts)) return ts;
  if (typeof ts !== "string") return undefined;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : undefined;
}

/** pi's `buildSessionContext` projection of one entry, or undefined when it carries no message. */
function toMessage(e: ParsedEntry, skipped: SkippedLine[]): AgentMessage | undefined {
  const v = e.value;
  switch (v.type) {
    case "message": {
      const m = v.message;
      if (!isObject(m) || typeof m.role !== "string") {
        skipped.push({ line: e.line, reason: "message entry without a message" });
        return undefined;
      }
      // pi's v2 -> v3 migration renamed the role; older files may still carry it.
      if (m.role === "hookMessage") return { ...m, role: "custom" } as AgentMessage;
      return m as AgentMessage;
    }
    case "custom_message":
      return {
        role: "custom",
        customType: typeof v.customType === "string" ? v.customType : "",
        content: (v.content ?? "") as string,
        display: v.display as boolean | undefined,
        details: v.details,
        timestamp: isoMs(v.timestamp),
      };
    case "branch_summary":
      if (typeof v.summary !== "string" || v.summary.length === 0) return undefined;
      return { role: "branchSummary", summary: v.summary, fromId: v.fromId, timestamp: isoMs(v.timestamp) };
    default:
      return undefined;
  }
}

function project(
  path: ParsedEntry[],
  all: ParsedEntry[],
  mode: "apply" | "ignore",
  skipped: SkippedLine[],
): AgentMessage[] {
  const out: AgentMessage[] = [];
  let compactionAt = -1;
  if (mode === "apply") {
    for (let i = path.length - 1; i >= 0; i--)
      if (path[i]!.value.type === "compaction") {
        compactionAt = i;
        break;
      }
  }
  if (compactionAt === -1) {
    for (const e of path) {
      const m = toMessage(e, skipped);
      if (m) out.push(m);
    }
    return out;
  }
  const c = path[compactionAt]!.value;
  out.push({
    role: "compactionSummary",
    summary: c.summary,
    tokensBefore: c.tokensBefore,
    timestamp: isoMs(c.timestamp),
  });
  // v3 names the first kept entry by id; v1 by its index among the file's entries (header included),
  // which is how pi's v1 -> v2 migration maps it.
  let firstKept: ParsedEntry | undefined;
  if (typeof c.firstKeptEntryId === "string") firstKept = path.find((e) => e.value.id === c.firstKeptEntryId);
  else if (typeof c.firstKeptEntryIndex === "number") {
    const target = all[c.firstKeptEntryIndex];
    if (target && target.value.type !== "session") firstKept = target;
  }
  let keeping = false;
  for (let i = 0; i < compactionAt; i++) {
    const e = path[i]!;
    if (e === firstKept) keeping = true;
    if (keeping) {
      const m = toMessage(e, skipped);
      if (m) out.push(m);
    }
  }
  for (let i = compactionAt + 1; i < path.length; i++) {
    const m = toMessage(path[i]!, skipped);
    if (m) out.push(m);
  }
  return out;
}
