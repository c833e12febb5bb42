/**
 * The "as recorded" baseline: what the agent actually sent, its own compactions applied where they
 * happened. The replay walks the full history (what Condense has to keep small); this module finds
 * each host compaction in the file (pi `compaction` entries, Claude Code compact summaries, Codex
 * `compacted` items) and reads the context right after it, so that request c of the recorded session
 * is that context followed by the full-history messages that came after the compaction.
 */
import { readAnySession, type AgentMessage } from "@condense/core";

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
