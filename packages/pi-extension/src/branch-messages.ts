/**
 * The branch as the agent's message list: pi's own `buildSessionContext` over the current path, so
 * compactions, custom messages and branch summaries project exactly as the agent sees them. Used off
 * the render path (captures, triggers, metrics), where the session file is the source of truth.
 */
import { buildSessionContext, type ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { AgentMessage } from "@condense/core";

export function branchMessages(ctx: ExtensionContext): AgentMessage[] {
  try {
    const sm = ctx.sessionManager;
    return buildSessionContext(sm.getBranch(), sm.getLeafId()).messages as unknown as AgentMessage[];
  } catch {
    return [];
  }
}

/**
 * Summary messages on the whole current path, read from the session entries rather than the
 * projection: a compaction drops older custom messages from the projection, and a summary delivered
 * before it must still count as delivered (or it would be appended again after every compaction).
 */
export function pathSummaryMessages(ctx: ExtensionContext): AgentMessage[] {
  try {
    const out: AgentMessage[] = [];
    for (const e of ctx.sessionManager.getBranch()) {
      if (e.type !== "custom_message") continue;
      out.push({
        role: "custom",
        customType: e.customType,
        content: e.content,
        display: e.display,
        details: e.details,
        timestamp: Date.parse(e.timestamp),
      } as unknown as AgentMessage);
    }
    return out;
  } catch {
    return [];
  }
}
