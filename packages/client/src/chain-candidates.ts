/**
 * The chains a flush's request could carry, computed once for both places that need them: the `roi`
 * gate, which values them before it asks for a flush (at a reply, which may have closed a chain, and at
 * a known cold-cache moment), and the flush request (flush-request.ts), which carries the chains and,
 * for a `roi` flush, only those that pay. One function detects the chains on the branch (with the
 * closing reply threaded in, CAP-CHAIN-4), computes the recovery-grace set (on the branch without the
 * closing reply), selects the ones the worker would compress and sizes those for the cost model (core
 * chain-cost.ts). The gate's result is handed to the request's build, which reuses it when it is built
 * from the same branch, reply, state and settings, so the chains are sized once per flush.
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
  type DetectedChain,
} from "@condense/core";

export interface FlushChains {
  /** What this was computed from (a build reuses it only for the very same inputs, see `sameInputs`). */
  branch: readonly AgentMessage[];
  closingMessage: AgentMessage | undefined;
  state: CondenseState;
  settings: CondenseSettings;
  /** The branch with the closing reply threaded in: what the chains were detected on. */
  detection: readonly AgentMessage[];
  detected: DetectedChain[];
  /** Recovery grace, on the branch without the closing reply. */
  grace: Set<string>;
  /**
   * The chains the worker would compress (the same objects as in `detected`), and their sizes in the
   * same order; both empty when `sized` is false or chain compression is off.
   */
  eligible: DetectedChain[];
  candidates: ChainCandidate[];
  sized: boolean;
}

/**
 * Detection and grace always; eligibility and sizing only with `size` (the `roi` policy weighs the
 * chains: the gate, a `roi` flush's request) and while chain compression is on.
 */
export function flushChains(
  branch: readonly AgentMessage[],
  closingMessage: AgentMessage | undefined,
  state: CondenseState,
  settings: CondenseSettings,
  size: boolean,
): FlushChains {
  const detection = withClosingMessage(branch, closingMessage);
  const grace = graceSet(branch, settings.recoveryGraceTurns);
  const detected = detectChains(detection, settings);
  const base = { branch, closingMessage, state, settings, detection, detected, grace };
  if (!size || !settings.enabled || !settings.chainCompression.enabled)
    return { ...base, eligible: [], candidates: [], sized: size };
  const eligible = selectEligibleChains(detected, state, {
    rollingWindow: settings.chainCompression.rollingWindow,
    graceKeys: grace,
  });
  const candidates = eligible.length === 0 ? [] : chainCandidates(detection, eligible, state, settings);
  return { ...base, eligible, candidates, sized: true };
}

/** Whether `chains` was computed from exactly these inputs (so it stands for computing them again). */
export function sameInputs(
  chains: FlushChains,
  branch: readonly AgentMessage[],
  closingMessage: AgentMessage | undefined,
  state: CondenseState,
  settings: CondenseSettings,
): boolean {
  return (
    chains.branch === branch &&
    chains.closingMessage === closingMessage &&
    chains.state === state &&
    chains.settings === settings
  );
}
