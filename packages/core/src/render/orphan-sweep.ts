/**
 * Phase 4, orphan sweep (CAP-RENDER-18..20, 2.9.1 barrier). Providers reject a tool result whose call
 * is not in the assistant turn that opened it, permanently; the host repairs orphan calls but never
 * orphan results. So one forward pass keeps a result only when the nearest preceding assistant, with
 * nothing but tool results in between, called its id and no earlier result in that turn answered it.
 * Any other message (user, custom, branchSummary, compactionSummary, bashExecution, unknown roles, and
 * unreadable entries) is a barrier: deliberately no allowlist, since the host turns these into user
 * text that would split the call from its result.
 *
 * The open set is the opening assistant's own calls, read in place, so a clean pass allocates nothing.
 */
import { orphanSweepDiagnostic } from "../diagnostics.ts";
import type { AssistantMessage, ToolResultMessage } from "../messages.ts";
import { isReadableAssistant, isReadableToolResult } from "./message-shape.ts";
import { report, type RenderContext } from "./render-context.ts";
import { answeredEarlier, callsId } from "./turn-pairing.ts";

export function orphanSweep(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  let opener = -1;
  let swept: number[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (isReadableAssistant(m)) { opener = i; continue; }
    if (isReadableToolResult(m)) {
      const a = opener >= 0 ? (messages[opener] as AssistantMessage) : undefined;
      if (a && callsId(a, m.toolCallId) && !answeredEarlier(messages, opener, i, m.toolCallId)) continue;
      (swept ??= []).push(i);
      continue;
    }
    opener = -1;
  }
  if (!swept) return messages;
  const ids = swept.map((i) => (messages[i] as ToolResultMessage).toolCallId).sort();
  report(ctx, orphanSweepDiagnostic(ids));
  ctx.stats.swept += swept.length;
  const out: unknown[] = [];
  let k = 0;
  for (let i = 0; i < messages.length; i++) {
    if (k < swept.length && swept[k] === i) { k++; continue; }
    out.push(messages[i]);
  }
  return out;
}
