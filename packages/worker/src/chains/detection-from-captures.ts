/**
 * The worker never sees the agent's messages, but core's chain planner resolves an uncovered
 * chain's span (CAP-RENDER-9) and extracts its records from a message array (CAP-CHAIN-8). This
 * rebuilds the minimal array from capture rows, which keep the raw text of every call, trivial
 * skips included: per chain its start user message, one assistant call + result per captured
 * middle, and the closing assistant. Only chain boundaries carry user/assistant timestamps, so
 * span resolution sees exactly the boundaries the client reported.
 */
import type { AgentMessage, ClosedChain } from "@condense/core";
import type { CaptureRow } from "@condense/db";

export function detectionFromCaptures(chains: readonly ClosedChain[], rows: readonly CaptureRow[]): AgentMessage[] {
  const byKey = new Map(rows.map((r) => [r.occurrenceKey, r]));
  const out: AgentMessage[] = [];
  for (const chain of [...chains].sort((a, b) => a.startUserTimestamp - b.startUserTimestamp)) {
    out.push({ role: "user", content: "", timestamp: chain.startUserTimestamp });
    for (const key of chain.middleOccurrenceKeys) {
      const r = byKey.get(key);
      if (!r || r.resultTimestamp === null) continue;
      out.push({
        role: "assistant",
        content: [{ type: "toolCall", id: r.toolCallId, name: r.toolName, arguments: r.args }],
      });
      out.push({
        role: "toolResult",
        toolCallId: r.toolCallId,
        toolName: r.toolName,
        content: [{ type: "text", text: r.resultText }],
        isError: r.isError,
        timestamp: r.resultTimestamp,
      });
    }
    out.push({ role: "assistant", content: [{ type: "text", text: "" }], timestamp: chain.finalAssistantTimestamp });
  }
  return out;
}
