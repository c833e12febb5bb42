/**
 * What of a session's state belongs to one branch. A pi session is a tree (`/tree` moves the leaf,
 * `/fork` copies a path into a new file) and Condense keeps one state for the whole tree, keyed by
 * occurrence (`id@resultTimestamp`), which no two branches share unless the entry itself is shared. So a
 * branch owns exactly the summaries that cover an occurrence it holds: delivering any other summary
 * would put another branch's work into this branch's context.
 */
import { occKey } from "./keys.ts";
import { isToolResult, numericTimestamp, type AgentMessage } from "./messages.ts";
import type { SummaryEntry } from "./state-types.ts";

/** Occurrence keys of the tool results in `messages` (a branch, or the projection the agent sees). */
export function occurrenceKeysOf(messages: readonly AgentMessage[]): Set<string> {
  const keys = new Set<string>();
  for (const m of messages) if (isToolResult(m)) keys.add(occKey(m.toolCallId, numericTimestamp(m)));
  return keys;
}

/** A summary belongs to a branch when it covers at least one occurrence the branch holds. */
export function summaryOnBranch(summary: Pick<SummaryEntry, "coverage">, keys: ReadonlySet<string>): boolean {
  for (const k of summary.coverage) if (keys.has(k)) return true;
  return false;
}

export function summariesOnBranch<T extends Pick<SummaryEntry, "coverage">>(
  summaries: readonly T[],
  keys: ReadonlySet<string>,
): T[] {
  return summaries.filter((s) => summaryOnBranch(s, keys));
}
