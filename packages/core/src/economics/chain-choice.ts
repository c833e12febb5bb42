/**
 * Which of the chains a `roi` flush could have compressed its request carries. Compressing a chain
 * moves the cached prefix's break back to the chain's start, so the flush's first request rewrites
 * everything from there: a chain far back pays only if its reclaim over the expected remaining calls
 * repays that rewrite. A chain that starts inside the pending tail adds no rewrite and always goes.
 * Sending a chain makes every later-starting chain's rewrite free, so the choices are the cut points:
 * every chain that starts at or after one candidate's start. The cut with the highest net value of
 * applying the flush now wins; none pays, no chain in front of the pending work goes. A chain held
 * back is sent by a later flush, and at a cold-cache moment (the request starts cold, or a reply's
 * flush lands after the user's turn on an expired cache) its rewrite costs nothing extra, so it pays.
 * The manual command and the budget ceiling do not ask: they send every chain.
 */
import { decideRoi, pendingTailTokens, type ChainCandidate, type RoiDecision, type RoiInput } from "./roi-policy.ts";

export interface ChainChoice {
  /** Per candidate (same order): whether the flush's request carries it. */
  send: boolean[];
  /** The `roi` estimate of the flush with the chains it carries. */
  decision: RoiDecision;
}

const nonNeg = (x: number) => (Number.isFinite(x) && x > 0 ? x : 0);

export function chooseFlushChains(input: Omit<RoiInput, "chains">, candidates: readonly ChainCandidate[]): ChainChoice {
  const pendingTail = pendingTailTokens(input.pending, input.contextTokens);
  const tails = candidates.map((c) => Math.min(nonNeg(input.contextTokens), nonNeg(c.tailTokens)));
  // The cut "nothing in front of the pending work" first, then each farther start, nearest first.
  const cuts = [pendingTail, ...new Set(tails.filter((t) => t > pendingTail).sort((a, b) => a - b))];
  let best: ChainChoice | null = null;
  for (const cut of cuts) {
    const send = tails.map((t) => t <= cut);
    const decision = decideRoi({ ...input, chains: candidates.filter((_, i) => send[i]) });
    if (best === null || decision.value.nowUsd > best.decision.value.nowUsd) best = { send, decision };
  }
  return best!;
}
