/**
 * How a summary enters the agent's context (CAP-FLUSH-14): as a hidden custom message
 * (`SUMMARY_CUSTOM_TYPE`, display false) appended at the end of the branch, carrying the refs it
 * covers. Delivery must never create an LLM call of its own: while the agent is idle the message is
 * appended directly; during a run it is steered from the inline `tool_result` hook, which the loop
 * picks up before its next call anyway. Each summary is delivered once per branch; the ids already on
 * the branch are read back at session start, so a resumed session does not repeat them.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { isSummaryMessage, SUMMARY_CUSTOM_TYPE, type AgentMessage, type SummaryEntry } from "@condense/core";

export interface SummaryDetails {
  summaryId: string;
  toolCallRefs: SummaryEntry["refs"];
  toolNames: string[];
  turnIndex: number;
  timestamp: number;
}

export function summaryMessage(s: SummaryEntry): { customType: string; content: string; display: false; details: SummaryDetails } {
  return {
    customType: SUMMARY_CUSTOM_TYPE,
    content: s.text,
    display: false,
    details: { summaryId: s.id, toolCallRefs: s.refs, toolNames: s.toolNames, turnIndex: s.turnIndex, timestamp: s.timestamp },
  };
}

export class SummaryDelivery {
  private readonly delivered = new Set<string>();

  constructor(private readonly pi: ExtensionAPI) {}

  /** Forget everything and record the summaries already on this branch. */
  reset(branch: readonly AgentMessage[]): void {
    this.delivered.clear();
    for (const m of branch) {
      if (!isSummaryMessage(m)) continue;
      const id = (m.details as { summaryId?: unknown } | undefined)?.summaryId;
      if (typeof id === "string") this.delivered.add(id);
    }
  }

  undelivered(summaries: readonly SummaryEntry[]): SummaryEntry[] {
    return summaries.filter((s) => !this.delivered.has(s.id));
  }

  /** Returns how many were sent. `steer` only from an inline hook during a run. */
  deliver(summaries: readonly SummaryEntry[], how: "append" | "steer"): number {
    let n = 0;
    for (const s of this.undelivered(summaries)) {
      this.pi.sendMessage(summaryMessage(s), how === "steer" ? { deliverAs: "steer" } : undefined);
      this.delivered.add(s.id);
      n++;
    }
    return n;
  }
}
