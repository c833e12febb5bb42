/**
 * How summaries enter a replayed branch: as the hidden custom message the pi extension appends
 * (customType condense-summary, the refs it covers in `details`), once per summary id, right
 * before the next model call. The renderer replaces the covered results with stubs only once their
 * summary is in the context.
 */
import { SUMMARY_CUSTOM_TYPE, type AgentMessage, type SummaryEntry } from "@condense/core";

export function summaryMessage(s: SummaryEntry, timestamp: number): AgentMessage {
  return {
    role: "custom",
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
    timestamp,
  };
}
