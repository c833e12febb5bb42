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
