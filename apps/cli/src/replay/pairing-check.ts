/**
 * The request invariant a replay checks on every rendered context: tool pairing. A provider rejects
 * a tool result that does not answer a call of the assistant message that opened its turn, and a
 * call left without its result. Real sessions carry some of the latter already (aborted turns; the
 * host back-fills them), so a render may keep those but must not create new ones.
 */
import { isAssistant, isToolResult, toolCallsOf, type AgentMessage } from "@condense/core";

interface Pairing {
  orphanResults: string[];
  unanswered: Set<string>;
}

function pairing(messages: readonly AgentMessage[]): Pairing {
  const orphanResults: string[] = [];
  const unanswered = new Set<string>();
  let open = new Set<string>();
  const close = () => {
    for (const id of open) unanswered.add(id);
    open = new Set();
  };
  for (const m of messages) {
    if (isAssistant(m)) {
      close();
      open = new Set(toolCallsOf(m).map((c) => c.id));
    } else if (isToolResult(m)) {
      if (open.has(m.toolCallId)) open.delete(m.toolCallId);
      else orphanResults.push(m.toolCallId);
    } else close();
  }
  // Calls of the last assistant are still running when the request is made.
  return { orphanResults, unanswered };
}

/** Violations of `rendered` that the raw context did not already have. */
export function pairingViolations(rendered: readonly AgentMessage[], raw: readonly AgentMessage[]): string[] {
  const r = pairing(rendered);
  const base = pairing(raw);
  const out: string[] = [];
  for (const id of r.orphanResults) out.push(`tool result ${id} does not answer a call of its turn`);
  for (const id of r.unanswered) if (!base.unanswered.has(id)) out.push(`tool call ${id} lost its result`);
  return out;
}
