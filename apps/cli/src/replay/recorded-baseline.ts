/**
 * The "as recorded" baseline: what the agent actually sent, its own compactions applied where they
 * happened. The replay walks the full history (what Condense has to keep small); this module finds
 * each host compaction in the file (pi `compaction` entries, Claude Code compact summaries, Codex
 * `compacted` items) and reads the context right after it, so that request c of the recorded session
 * is that context followed by the full-history messages that came after the compaction.
 */
import { isSummaryMessage, isToolResult, readAnySession, type AgentMessage } from "@condense/core";

export interface HostCompaction {
  /** Full-history messages before the compaction. */
  fullCount: number;
  /** The context the host continued with (its summary and the entries it kept). */
  context: AgentMessage[];
}

function isCompactionLine(line: string): boolean {
  if (!line.includes("compact")) return false;
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return v.type === "compaction" || v.isCompactSummary === true || v.type === "compacted";
  } catch {
    return false;
  }
}

/** The host's compactions, oldest first; none for formats that have none (SWE-agent trajectories). */
export function hostCompactions(text: string, name: string): HostCompaction[] {
  if (!text.includes("compact")) return [];
  const lines = text.split("\n");
  const out: HostCompaction[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isCompactionLine(lines[i]!)) continue;
    const head = lines.slice(0, i + 1).join("\n");
    const applied = readAnySession(head, name, { compaction: "apply" }).messages;
    const full = readAnySession(head, name, { compaction: "ignore" }).messages;
    out.push({ fullCount: full.length, context: applied });
  }
  return out;
}

/** Request context as recorded, for a full-history prefix of `raw`. */
export function recordedContext(
  raw: readonly AgentMessage[],
  compactions: readonly HostCompaction[],
): readonly AgentMessage[] {
  let c: HostCompaction | undefined;
  for (const x of compactions) if (x.fullCount <= raw.length) c = x;
  return c ? [...c.context, ...raw.slice(c.fullCount)] : raw;
}

/** The raw messages' identity (role, timestamp, tool-call id), shared by a raw message and its rendering. */
const keyOf = (m: AgentMessage) =>
  isToolResult(m) ? `r:${m.toolCallId}:${m.timestamp ?? ""}` : `${m.role}:${m.timestamp ?? ""}`;

/**
 * What Condense would have sent on top of the host's compactions: the host's compacted context,
 * then Condense's render of the messages after the compaction point (the render's messages are
 * matched to the raw ones by identity; a summary is kept when the first result it covers is kept).
 * Before the first compaction it is the render itself.
 */
export function recordedRender(
  raw: readonly AgentMessage[],
  rendered: readonly AgentMessage[],
  compactions: readonly HostCompaction[],
): readonly AgentMessage[] {
  let c: HostCompaction | undefined;
  for (const x of compactions) if (x.fullCount <= raw.length) c = x;
  if (!c) return rendered;
  const kept = new Set<string>();
  const keptCalls = new Set<string>();
  for (const m of raw.slice(c.fullCount)) {
    kept.add(keyOf(m));
    if (isToolResult(m)) keptCalls.add(m.toolCallId);
  }
  const tail = rendered.filter((m) => {
    if (isSummaryMessage(m)) {
      const refs = (m.details as { toolCallRefs?: { toolCallId?: string }[] } | undefined)?.toolCallRefs;
      return keptCalls.has(String(refs?.[0]?.toolCallId));
    }
    return kept.has(keyOf(m));
  });
  return [...c.context, ...tail];
}
