/**
 * What a flush request carries (POST /v1/sessions/:id/flushes): the trigger, the pre-flush context
 * metrics snapshot, the chains the client detected on its branch (with the closing reply threaded in on
 * the reply path, CAP-CHAIN-4) and, per chain, whether recovery grace defers it (CAP-QUERY-6), plus the
 * session settings. A `roi` flush carries only the chains whose compression repays its own cache rewrite
 * (core's chooseFlushChains); the manual command and the budget ceiling carry every chain. The worker
 * never sees the agent's messages, so everything that needs them is computed here, off the agent's
 * critical path. Chains are detected once (chain-candidates.ts; for a `roi` flush decided at a reply or
 * a cold moment, by the gate that decided it) and serve both the request and the metrics' chain share;
 * message sizes come from the caller's cache (message-sizes.ts).
 */
import {
  chooseFlushChains,
  computeContextMetrics,
  isChainDeferred,
  pendingTailTokens,
  type AgentMessage,
  type CondenseSettings,
  type CondenseState,
  type DetectedChain,
  type FlushTrigger,
  type RoiDecision,
  type RoiInput,
  type SizeOf,
} from "@condense/core";
import type { FlushChainInput, FlushMetricsInput, FlushRequest } from "@condense/contract";
import { flushChains, sameInputs, type FlushChains } from "./chain-candidates.ts";

/** A chain as the client always sends it: the contract's chain with every field present. */
export type FlushChain = Required<FlushChainInput>;

/** The contract's pre-flush metrics: core's context metrics, the last usage, the cost model's expectation. */
export type FlushMetricsSnapshot = FlushMetricsInput;

/** The contract's flush request, with the fields the client always fills in made required. */
export type FlushRequestBody = FlushRequest & {
  trigger: FlushTrigger;
  metrics: FlushMetricsSnapshot;
  chains: FlushChain[];
  settings: Record<string, unknown>;
};

export interface FlushInput {
  trigger: FlushTrigger;
  /** The branch messages (oldest first) as the session holds them. */
  branch: readonly AgentMessage[];
  /** The reply that triggered a message-end flush; not persisted yet. */
  closingMessage?: AgentMessage;
  usage?: { tokens: number | null; contextWindow: number } | null;
  /**
   * The `roi` policy's inputs when it decided this flush: the chains the worker would compress are
   * then sized and only those that pay are sent. Absent (manual command, budget ceiling): all are sent.
   */
  roi?: Omit<RoiInput, "chains">;
  /**
   * The chains as the `roi` gate detected and sized them when it decided this flush (chain-candidates.ts):
   * used when computed from this very branch, reply, state and settings, else computed again.
   */
  chains?: FlushChains;
}

export interface FlushBuild {
  body: Omit<FlushRequestBody, "flushId">;
  /** The `roi` estimate with the chains the request carries, when the policy chose them. */
  roi: RoiDecision | null;
  /** Estimated reclaim (tokens) of the chains sent that start in front of the pending work. */
  chainReclaimTokens: number;
}

function toFlushChain(c: DetectedChain, grace: ReadonlySet<string>): FlushChain | null {
  // The API needs a start timestamp to key the chain; a chain without one can never be compressed.
  if (c.startUserTimestamp === null) return null;
  const keys = c.middleOccurrenceKeys.length > 0 ? c.middleOccurrenceKeys : c.middleToolCallIds;
  const graceKeys = grace.size === 0 ? [] : keys.filter((k) => grace.has(k));
  return {
    startUserTimestamp: c.startUserTimestamp,
    finalAssistantTimestamp: c.finalAssistantTimestamp,
    middleToolCallIds: c.middleToolCallIds,
    middleOccurrenceKeys: c.middleOccurrenceKeys,
    protectedToolCallIds: c.protectedToolCallIds,
    graceKeys,
    deferred: isChainDeferred(c, grace),
  };
}

/**
 * The chains of `branch` from those of `detection` (= branch + an appended message, CAP-CHAIN-4),
 * when that is exact: an appended assistant only ever closes (emits) the trailing open chain, at its
 * own index, and changes no earlier one. Null for any other appended role (detect again).
 */
function chainsBefore(
  detected: readonly DetectedChain[],
  detection: readonly AgentMessage[],
  branch: readonly AgentMessage[],
): readonly DetectedChain[] | null {
  if (detection === branch) return detected;
  if (detection.length !== branch.length + 1 || detection[branch.length]?.role !== "assistant") return null;
  const last = detected[detected.length - 1];
  return last && last.endIndex >= branch.length ? detected.slice(0, -1) : detected;
}

export function buildFlushRequest(
  input: FlushInput,
  state: CondenseState,
  settings: CondenseSettings,
  sizeOf?: SizeOf,
): FlushBuild {
  const sizeChains = input.roi !== undefined;
  const given = input.chains;
  const { detection, detected, grace, eligible, candidates } =
    given && (given.sized || !sizeChains) && sameInputs(given, input.branch, input.closingMessage, state, settings)
      ? given
      : flushChains(input.branch, input.closingMessage, state, settings, sizeChains);
  // Only chains the worker would compress are held back; the rest (the rolling window, deferred or
  // compressed ones) stay in the list, so the worker's window over the list is what it was.
  const held = new Set<DetectedChain>();
  let roi: RoiDecision | null = null;
  let chainReclaimTokens = 0;
  if (input.roi && eligible.length > 0) {
    const choice = chooseFlushChains(input.roi, candidates);
    roi = choice.decision;
    const pendingTail = pendingTailTokens(input.roi.pending, input.roi.contextTokens);
    eligible.forEach((c, i) => {
      if (!choice.send[i]) held.add(c);
      else if (candidates[i]!.tailTokens > pendingTail) chainReclaimTokens += candidates[i]!.reclaimTokens;
    });
  }
  const chains: FlushChain[] = [];
  for (const c of detected) {
    if (held.has(c)) continue;
    const fc = toFlushChain(c, grace);
    if (fc) chains.push(fc);
  }
  const branchChains = chainsBefore(detected, detection, input.branch);
  const metrics: FlushMetricsSnapshot = {
    ...computeContextMetrics(input.branch, state, settings, {
      ...(sizeOf ? { sizeOf } : {}),
      ...(branchChains ? { chains: branchChains } : {}),
    }),
  };
  if (input.usage) {
    metrics.tokens = input.usage.tokens;
    metrics.contextWindow = input.usage.contextWindow;
  }
  return { body: { trigger: input.trigger, metrics, chains, settings: { ...settings } }, roi, chainReclaimTokens };
}
