/**
 * How the `roi` cost model sizes the chains a flush could compress (economics/chain-choice.ts): per
 * eligible chain, the tokens of the rendered context from its start user message to the end (what the
 * first request after the compression writes to the cache again) and the tokens it takes out of every
 * later request (the rendered messages strictly inside the chain, minus the compressed-chain message
 * that replaces them, sized from the plan's body: the covering summaries or the deterministic body).
 * Sizes are chars/4 of the messages' JSON, as everywhere else in the client's estimates.
 */
import type { ChainCandidate } from "./economics/roi-policy.ts";
import { planChainCompression, type ClosedChain } from "./chain-plan.ts";
import type { AgentMessage } from "./messages.ts";
import { tokensOfChars } from "./metrics.ts";
import { messageChars } from "./render/message-size.ts";
import { pruneMessages } from "./render/prune-messages.ts";
import type { CondenseSettings } from "./settings.ts";
import type { CondenseState } from "./state.ts";
import { compressedChainText } from "./texts.ts";

export function chainCandidates(
  detection: readonly AgentMessage[],
  eligible: readonly ClosedChain[],
  state: CondenseState,
  settings: CondenseSettings,
): ChainCandidate[] {
  if (eligible.length === 0) return [];
  const rendered = pruneMessages(detection, state, { settings, measure: false }).messages;
  const suffix = new Array<number>(rendered.length + 1).fill(0);
  for (let i = rendered.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + messageChars(rendered[i]);
  // The render keeps the chain's start user; it may copy the final assistant (thinking stripped), so
  // both are found by role and timestamp.
  const find = (role: string, timestamp: number, from: number) => {
    for (let i = from; i < rendered.length; i++) {
      const m = rendered[i] as { role?: unknown; timestamp?: unknown };
      if (m.role === role && m.timestamp === timestamp) return i;
    }
    return undefined;
  };
  const plan = planChainCompression(detection, eligible, state, { compressedAt: 0, settings });
  return eligible.map((chain, at) => {
    const start = find("user", chain.startUserTimestamp, 0);
    const end = start === undefined ? undefined : find("assistant", chain.finalAssistantTimestamp, start + 1);
    // A chain whose ends the render does not show as they are cannot be placed: it counts as the
    // whole context rewritten for nothing, so the cost model never sends it for its own sake.
    if (start === undefined || end === undefined || end <= start)
      return { tailTokens: tokensOfChars(suffix[0]!), reclaimTokens: 0 };
    const item = plan.items[at];
    const body =
      item?.kind === "covered"
        ? compressedChainText(item.blockId, item.entry.toolRefs, item.summaryTexts.join("\n\n"), "")
        : item?.kind === "deterministic"
          ? compressedChainText(item.blockId, item.entry.toolRefs, item.body, "")
          : null;
    const middle = suffix[start + 1]! - suffix[end]!;
    return {
      tailTokens: tokensOfChars(suffix[start]!),
      reclaimTokens: body === null ? 0 : Math.max(0, tokensOfChars(middle - JSON.stringify(body).length)),
    };
  });
}
