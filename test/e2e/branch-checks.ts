/**
 * What the branch and compaction suites read back after real pi runs: the session files' entry trees,
 * and the embedded service's PGlite database (captures, records, summaries). Plain functions, so each
 * check says in one place what "this branch sees only what belongs to it" means.
 */
import { readFileSync } from "node:fs";
import { createDb } from "@condense/db";
import { textOf, type ChatMessage } from "@condense/test-support/fake-llm";

export interface FileEntry {
  type: string;
  id: string;
  parentId: string | null;
  customType?: string;
  message?: { role: string; toolCallId?: string; timestamp?: number; content?: unknown };
  details?: {
    summaryId?: string;
    summaryIds?: string[];
    toolCallRefs?: { shortId: string; toolCallId: string; resultTimestamp?: number }[];
  };
  data?: unknown;
}

export interface SessionFile {
  header: { id: string; parentSession?: string };
  entries: FileEntry[];
  byId: Map<string, FileEntry>;
}

export function readSessionFile(path: string): SessionFile {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const header = lines[0] as unknown as SessionFile["header"];
  const entries = lines.slice(1) as unknown as FileEntry[];
  return { header, entries, byId: new Map(entries.map((e) => [e.id, e])) };
}

/** Entries from the root to `id`, root first. */
export function ancestry(file: SessionFile, id: string): FileEntry[] {
  const out: FileEntry[] = [];
  for (let e = file.byId.get(id); e; e = e.parentId ? file.byId.get(e.parentId) : undefined) out.push(e);
  return out.reverse();
}

const occ = (id: string, ts: number | undefined) => (ts === undefined ? id : `${id}@${ts}`);

/** Occurrence keys of every tool result entry in the file (every branch). */
export function toolResultKeys(file: SessionFile): string[] {
  return file.entries
    .filter((e) => e.type === "message" && e.message?.role === "toolResult")
    .map((e) => occ(e.message!.toolCallId!, e.message!.timestamp));
}

/**
 * Every Condense summary message in the file whose refs name an occurrence that is not an ancestor of
 * the message itself: a summary delivered into a branch it does not belong to.
 */
export function foreignSummaryEntries(file: SessionFile): { entry: string; foreign: string[] }[] {
  const out: { entry: string; foreign: string[] }[] = [];
  for (const e of file.entries) {
    if (e.type !== "custom_message" || e.customType !== "condense-summary") continue;
    const onPath = new Set(
      ancestry(file, e.id)
        .filter((a) => a.type === "message" && a.message?.role === "toolResult")
        .map((a) => occ(a.message!.toolCallId!, a.message!.timestamp)),
    );
    const refs = e.details?.toolCallRefs ?? [];
    // A summary belongs when it covers an occurrence of the branch (a combined steer carries several).
    const keys = refs.map((r) => occ(r.toolCallId, r.resultTimestamp));
    const foreign = keys.filter((k) => !onPath.has(k));
    if (foreign.length === keys.length || keys.length === 0) out.push({ entry: e.id, foreign });
  }
  return out;
}

/** Summary ids delivered into the file, once per message entry (a combined message lists several). */
export function deliveredSummaryIds(file: SessionFile): string[] {
  const ids: string[] = [];
  for (const e of file.entries) {
    if (e.type !== "custom_message" || e.customType !== "condense-summary") continue;
    ids.push(...(e.details?.summaryIds ?? (e.details?.summaryId ? [e.details.summaryId] : [])));
  }
  return ids;
}

export interface ServiceRows {
  sessions: string[];
  captures: { sessionId: string; key: string; status: string; reason: string | null }[];
  records: { sessionId: string; key: string; shortRef: string | null; command: string }[];
  summaries: { sessionId: string; id: string; coverage: string[] }[];
}

export async function readService(pgliteDir: string): Promise<ServiceRows> {
  const db = await createDb(`pglite:${pgliteDir}`);
  try {
    const q = async <T>(sql: string) => (await db.pglite!.query<T>(sql)).rows;
    return {
      sessions: (await q<{ session_id: string }>("select session_id from sessions order by session_id")).map(
        (r) => r.session_id,
      ),
      captures: (
        await q<{ session_id: string; occurrence_key: string; status: string; status_reason: string | null }>(
          "select session_id, occurrence_key, status, status_reason from captures order by seq",
        )
      ).map((r) => ({ sessionId: r.session_id, key: r.occurrence_key, status: r.status, reason: r.status_reason })),
      records: (
        await q<{ session_id: string; key: string; short_ref: string | null; args: { command?: string } }>(
          "select session_id, key, short_ref, args from tool_call_records order by seq",
        )
      ).map((r) => ({ sessionId: r.session_id, key: r.key, shortRef: r.short_ref, command: r.args?.command ?? "" })),
      summaries: (
        await q<{ session_id: string; id: string; coverage: string[] }>(
          "select session_id, id, coverage from summaries order by seq",
        )
      ).map((r) => ({ sessionId: r.session_id, id: r.id, coverage: r.coverage })),
    };
  } finally {
    await db.close();
  }
}

/** `tN` refs named in the Condense summary messages of one request. */
export function summaryRefsIn(messages: ChatMessage[]): string[] {
  const refs: string[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    const t = textOf(m.content);
    if (!t.includes("**Condensed tool refs**")) continue;
    for (const hit of t.matchAll(/`(t\d+)`/g)) refs.push(hit[1]!);
  }
  return refs;
}

/** For each stubbed tool message: its ref and the command of the call it answers. */
export function stubbedCalls(messages: ChatMessage[]): { ref: string; command: string }[] {
  const commandById = new Map<string, string>();
  const out: { ref: string; command: string }[] = [];
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) {
      try {
        commandById.set(c.id, (JSON.parse(c.function.arguments) as { command?: string }).command ?? "");
      } catch {
        /* not JSON */
      }
    }
    if (m.role !== "tool") continue;
    const hit = /^\[Condensed: [^\n]*ref `(t\d+)`/.exec(textOf(m.content));
    if (hit) out.push({ ref: hit[1]!, command: commandById.get(m.tool_call_id ?? "") ?? "" });
  }
  return out;
}
