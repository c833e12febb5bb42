/**
 * How a summary enters the agent's context (CAP-FLUSH-14): as a hidden custom message
 * (`SUMMARY_CUSTOM_TYPE`, display false) appended at the end of the branch, carrying the refs it
 * covers. Delivery must never create an LLM call of its own: while the agent is idle the message is
 * appended directly; during a run it is steered from the inline `tool_result` hook, which the loop
 * picks up before its next call anyway. pi drains its steering queue one message per turn, so the
 * summaries of one steer are sent as one message (details list every summary id and the union of their
 * refs); otherwise ten summaries would need ten turns to arrive. Each summary is delivered once per
 * branch; the ids already on the branch path are read back at session start and after `/tree`, so a
 * resumed session does not repeat them.
 *
 * Only the branch's own summaries are delivered: one Condense state serves the whole session tree, and
 * a summary of calls made on another branch (or compacted away from this one) is not this context's to
 * hold. A summary belongs when it covers an occurrence the agent's current context holds.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import {
  isSummaryMessage,
  summariesOnBranch,
  SUMMARY_CUSTOM_TYPE,
  type AgentMessage,
  type SummaryEntry,
} from "@condense/core";
import { piCondenseSummaryId, PI_CONDENSE_TYPES } from "./pi-condense-import.ts";

export interface SummaryDetails {
  summaryId: string;
  /** Every summary in this message (more than one only for a combined steer). */
  summaryIds?: string[];
  toolCallRefs: SummaryEntry["refs"];
  toolNames: string[];
  turnIndex: number;
  timestamp: number;
}

export function summaryMessage(s: SummaryEntry): {
  customType: string;
  content: string;
  display: false;
  details: SummaryDetails;
} {
  return {
    customType: SUMMARY_CUSTOM_TYPE,
    content: s.text,
    display: false,
    details: {
      summaryId: s.id,
      toolCallRefs: s.refs,
      toolNames: s.toolNames,
      turnIndex: s.turnIndex,
      timestamp: s.timestamp,
    },
  };
}

/** Several summaries as one message: texts in order, refs and tool names united. */
export function combinedSummaryMessage(list: readonly SummaryEntry[]): ReturnType<typeof summaryMessage> {
  const first = summaryMessage(list[0]!);
  if (list.length === 1) return first;
  return {
    ...first,
    content: list.map((s) => s.text).join("\n\n"),
    details: {
      summaryId: list[0]!.id,
      summaryIds: list.map((s) => s.id),
      toolCallRefs: list.flatMap((s) => s.refs),
      toolNames: [...new Set(list.flatMap((s) => s.toolNames))],
      turnIndex: Math.max(...list.map((s) => s.turnIndex)),
      timestamp: Math.max(...list.map((s) => s.timestamp)),
    },
  };
}

/** Summary ids a branch message carries (one, or several for a combined message). */
export function summaryIdsOf(m: AgentMessage): string[] {
  if (!isSummaryMessage(m)) return [];
  const d = m.details as { summaryId?: unknown; summaryIds?: unknown } | undefined;
  if (Array.isArray(d?.summaryIds)) return d.summaryIds.filter((x): x is string => typeof x === "string");
  if (typeof d?.summaryId === "string") return [d.summaryId];
  // A pi-condense summary carries no id: its imported id derives from the refs it covers.
  const imported = m.customType === PI_CONDENSE_TYPES.summary ? piCondenseSummaryId(m.details) : null;
  return imported ? [imported] : [];
}

export class SummaryDelivery {
  private readonly delivered = new Set<string>();

  constructor(private readonly pi: ExtensionAPI) {}

  /** Forget everything and record the summaries already on this branch's path. */
  reset(pathSummaries: readonly AgentMessage[]): void {
    this.delivered.clear();
    for (const m of pathSummaries) for (const id of summaryIdsOf(m)) this.delivered.add(id);
  }

  undelivered(summaries: readonly SummaryEntry[]): SummaryEntry[] {
    return summaries.filter((s) => !this.delivered.has(s.id));
  }

  /**
   * Returns how many were sent. `steer` only from an inline hook during a run. `branchKeys` gives the
   * occurrence keys of the agent's current context; it is only asked for when something is undelivered.
   */
  deliver(summaries: readonly SummaryEntry[], how: "append" | "steer", branchKeys: () => ReadonlySet<string>): number {
    const undelivered = this.undelivered(summaries);
    if (undelivered.length === 0) return 0;
    const todo = summariesOnBranch(undelivered, branchKeys());
    if (todo.length === 0) return 0;
    if (how === "steer") this.pi.sendMessage(combinedSummaryMessage(todo), { deliverAs: "steer" });
    else for (const s of todo) this.pi.sendMessage(summaryMessage(s));
    for (const s of todo) this.delivered.add(s.id);
    return todo.length;
  }
}
