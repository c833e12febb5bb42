/**
 * The chains a flush's request could have the worker compress, sized for the `roi` cost model (core
 * chain-cost.ts), at an opportunity where the policy values them before asking for a flush: a reply
 * (which may have closed a chain) and a known cold-cache moment. The flush request (flush-request.ts)
 * sizes the same chains again against the same inputs when it is built and sends those that pay.
 */
import {
  chainCandidates,
  detectChains,
  graceSet,
  selectEligibleChains,
  withClosingMessage,
  type AgentMessage,
  type ChainCandidate,
  type CondenseSettings,
  type CondenseState,
} from "@condense/core";

export function flushChainCandidates(
  branch: readonly AgentMessage[],
  closingMessage: AgentMessage | undefined,
  state: CondenseState,
  settings: CondenseSettings,
): ChainCandidate[] {
  if (!settings.enabled || !settings.chainCompression.enabled) return [];
  const detection = withClosingMessage(branch, closingMessage);
  // Grace is computed on the branch without the closing message (CAP-CHAIN-4), as the request does.
  const eligible = selectEligibleChains(detectChains(detection, settings), state, {
    rollingWindow: settings.chainCompression.rollingWindow,
    graceKeys: graceSet(branch, settings.recoveryGraceTurns),
  });
  return eligible.length === 0 ? [] : chainCandidates(detection, eligible, state, settings);
}
