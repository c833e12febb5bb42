/**
 * What a flush request carries (POST /v1/sessions/:id/flushes): the trigger, the pre-flush context
 * metrics snapshot, the chains the client detected on its branch (with the closing reply threaded in on
 * the reply path, CAP-CHAIN-4) and, per chain, whether recovery grace defers it (CAP-QUERY-6), plus the
 * session settings. The worker never sees the agent's messages, so everything that needs them is
 * computed here, off the agent's critical path. Chains are detected once and serve both the request
 * and the metrics' chain share; message sizes come from the caller's cache (message-sizes.ts).
 */
import {
  computeContextMetrics,
  detectChains,
  graceSet,
  isChainDeferred,
  withClosingMessage,
  type AgentMessage,
  type CondenseSettings,
  type CondenseState,
  type DetectedChain,
  type FlushTrigger,
  type SizeOf,
} from "@condense/core";
import type { FlushChainInput, FlushMetricsInput, FlushRequest } from "@condense/contract";

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
): Omit<FlushRequestBody, "flushId"> {
  const detection = withClosingMessage(input.branch, input.closingMessage);
  // Grace is computed on the branch without the closing message (CAP-CHAIN-4).
  const grace = graceSet(input.branch, settings.recoveryGraceTurns);
  const detected = detectChains(detection, settings);
  const chains: FlushChain[] = [];
  for (const c of detected) {
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
  return { trigger: input.trigger, metrics, chains, settings: { ...settings } };
}
