/**
 * Flush trigger decisions (CAP-TRIGGER), as pure functions of what the agent side knows at each event:
 * the budget and delta thresholds, the turn_end gate, the reply (message_end) trigger, the manual
 * command and the reload rearm probe. The client owns the flags; this module only decides.
 */
import { FLUSH_TRIGGERS, type FlushTrigger } from "@condense/contract/vocabulary";
import type { CapturedBatch } from "./capture-types.ts";
import { hasToolCall, isAssistant, type AgentMessage } from "./messages.ts";
import { chooseFlushChains } from "./economics/chain-choice.ts";
import { decideRoi, type ChainCandidate, type RoiDecision, type RoiInput } from "./economics/roi-policy.ts";
import type { CondenseSettings } from "./settings.ts";

/** The triggers are the wire vocabulary's (`roi`: the cache-aware policy, economics/roi-policy.ts). */
export { FLUSH_TRIGGERS, type FlushTrigger };

/** A flush invoked without a (known) label is manual (CAP-TRIGGER-8). */
export function flushTriggerLabel(x: unknown): FlushTrigger {
  return (FLUSH_TRIGGERS as readonly unknown[]).includes(x) ? (x as FlushTrigger) : "manual";
}

/** Windows above this do not raise the budget: a 1M-token window is budgeted like a 300k one (CAP-TRIGGER-5). */
export const MAX_BUDGET_WINDOW = 300_000;

/** What the host reports after a provider call; `tokens` is null right after a provider-side compaction. */
export interface ContextUsage {
  tokens: number | null;
  contextWindow: number;
}

function usable(usage: ContextUsage | null | undefined): usage is { tokens: number; contextWindow: number } {
  return (
    !!usage &&
    typeof usage.tokens === "number" &&
    Number.isFinite(usage.tokens) &&
    typeof usage.contextWindow === "number" &&
    Number.isFinite(usage.contextWindow) &&
    usage.contextWindow > 0
  );
}

const validFraction = (x: number | null | undefined): x is number =>
  typeof x === "number" && Number.isFinite(x) && x > 0 && x <= 1;

/** The token count at which the budget trigger fires: `min(300k, threshold x window)`, or null when off. */
export function budgetTokenThreshold(contextWindow: number, threshold: number | null | undefined): number | null {
  if (!validFraction(threshold) || !(contextWindow > 0)) return null;
  return Math.min(MAX_BUDGET_WINDOW, threshold * contextWindow);
}

/** CAP-TRIGGER-5. The threshold is a share of the real window, then capped; not a share of a capped window. */
export function isBudgetHit(usage: ContextUsage | null | undefined, threshold: number | null | undefined): boolean {
  if (!usable(usage)) return false;
  const limit = budgetTokenThreshold(usage.contextWindow, threshold);
  return limit !== null && usage.tokens >= limit;
}

/** CAP-TRIGGER-6: tokens over `min(window, 300k)`, deliberately unclamped (600k on 1M = 2.0). */
export function usageFraction(usage: ContextUsage | null | undefined): number | null {
  if (!usable(usage)) return null;
  return usage.tokens / Math.min(usage.contextWindow, MAX_BUDGET_WINDOW);
}

/** Never fires without a previous fraction (first gate-evaluating turn after a load). */
export function isDeltaHit(current: number | null, previous: number | null, delta: number | null | undefined): boolean {
  if (!validFraction(delta) || current === null || previous === null) return false;
  return current - previous >= delta;
}

export interface TurnEndGateInput {
  enabled: boolean;
  /** Number of tool results this turn delivered. */
  toolResultCount: number;
  /** Whether live capture pushed a batch onto the pending queue this turn. */
  pushedThisTurn: boolean;
  /** Pending queue length after this turn's push. */
  pendingCount: number;
  rearmed: boolean;
  flushing: boolean;
  usage: ContextUsage | null | undefined;
  previousFraction: number | null;
  settings: Pick<CondenseSettings, "autoBudgetThreshold" | "budgetTurnDelta">;
}

export interface TurnEndGateDecision {
  flush: boolean;
  trigger?: "budget" | "delta" | "rearmed";
  /** Shown whenever a flush starts here, regardless of the status-line setting. */
  notice?: string;
  /** The value to keep as `previousFraction` for the next turn. */
  nextPreviousFraction: number | null;
  /** False when the gate returned before reading usage (steps 1, 2, 5). */
  evaluated: boolean;
}

/**
 * The turn_end gate (CAP-TRIGGER-4, steps 1-2 and 5-7; the caller has done capture and metrics).
 * Leftover pending batches from earlier turns do not make the gate reachable: only a batch pushed
 * this turn, or the reload rearm flag.
 */
export function decideTurnEnd(input: TurnEndGateInput): TurnEndGateDecision {
  const unchanged: TurnEndGateDecision = {
    flush: false,
    nextPreviousFraction: input.previousFraction,
    evaluated: false,
  };
  if (!input.enabled) return unchanged;
  if (input.toolResultCount <= 0 && !input.rearmed) return unchanged;
  if (!input.pushedThisTurn && !input.rearmed) return unchanged;
  const budgetHit = isBudgetHit(input.usage, input.settings.autoBudgetThreshold);
  const current = usageFraction(input.usage);
  const deltaHit = isDeltaHit(current, input.previousFraction, input.settings.budgetTurnDelta);
  // A null-tokens turn leaves the previous fraction alone (CAP-TRIGGER-6).
  const nextPreviousFraction = current ?? input.previousFraction;
  const hasWork = input.pendingCount > 0 || input.rearmed;
  if (!hasWork || input.flushing || !(budgetHit || deltaHit)) {
    return { flush: false, nextPreviousFraction, evaluated: true };
  }
  const trigger = input.pendingCount === 0 ? "rearmed" : budgetHit ? "budget" : "delta";
  const why = budgetHit ? "context budget reached" : "context jumped this turn";
  const what =
    input.pendingCount === 0
      ? "condensing work recovered after reload"
      : `condensing ${input.pendingCount} pending turn(s)`;
  return { flush: true, trigger, notice: `condense: ${why} — ${what}`, nextPreviousFraction, evaluated: true };
}

/** Status notice when live capture queued work (CAP-TRIGGER-4 step 3). */
export function queuedNotice(
  pendingCount: number,
  pruneOn: CondenseSettings["pruneOn"],
  flushPolicy: CondenseSettings["flushPolicy"] = "eager",
): string {
  const when =
    pruneOn === "on-demand"
      ? "/condense now"
      : flushPolicy === "roi"
        ? "the next moment a flush pays for itself"
        : "the agent's next text reply";
  return `condense: ${pendingCount} turn(s) queued — will summarize on ${when}`;
}

export interface MessageEndDecision {
  flush: boolean;
  trigger?: "message-end";
  /** The ended message, to be threaded into chain detection (it is not persisted yet, CAP-CHAIN-4). */
  closingMessage?: AgentMessage;
}

/**
 * CAP-TRIGGER-3: every text-only assistant reply in `agent-message` mode attempts a flush, under the
 * `eager` policy. Under `roi` (the default) a reply is only an opportunity, decided by `decideRoiGate`.
 */
export function decideMessageEnd(
  message: AgentMessage,
  settings: Pick<CondenseSettings, "enabled" | "pruneOn"> & { flushPolicy?: CondenseSettings["flushPolicy"] },
): MessageEndDecision {
  if (!settings.enabled || settings.pruneOn !== "agent-message") return { flush: false };
  if ((settings.flushPolicy ?? "eager") !== "eager") return { flush: false };
  if (!isAssistant(message) || hasToolCall(message)) return { flush: false };
  return { flush: true, trigger: "message-end", closingMessage: message };
}

/** A text-only assistant reply: the end of the agent's turn. */
export const isTextReply = (m: AgentMessage): boolean => isAssistant(m) && !hasToolCall(m);

export interface RoiGateInput {
  settings: Pick<CondenseSettings, "enabled" | "pruneOn" | "flushPolicy">;
  pendingCount: number;
  flushing: boolean;
  /** The reply that ended the turn, at a message-end opportunity (threaded into chain detection). */
  closingMessage?: AgentMessage;
  roi: Omit<RoiInput, "chains">;
  /**
   * The chains the flush's request could have compressed, sized (core chain-cost.ts), when the client
   * sized them at this opportunity (a reply, a known cold moment): the flush is then valued with the
   * chains that pay (chooseFlushChains), and a flush that pays only through its chains is asked for
   * too, with nothing pending. Absent: the pending work alone is valued.
   */
  chains?: readonly ChainCandidate[];
}

export interface RoiGateDecision {
  flush: boolean;
  trigger?: "roi";
  closingMessage?: AgentMessage;
  /** The estimate behind the choice; absent when the gate returned before estimating. */
  decision?: RoiDecision;
}

/**
 * The `roi` policy's gate at an opportunity (a tool turn ended, a reply ended, a user prompt arrived):
 * flush when the net value now of condensing the pending work and the chains that pay is positive
 * and beats waiting for the next cold-cache moment (with nothing pending, only chains can make it). Turns that never end a reply (Codex, SWE-agent, long autonomous runs) reach it
 * at every turn end, so they reclaim too.
 */
export function decideRoiGate(input: RoiGateInput): RoiGateDecision {
  const s = input.settings;
  if (!s.enabled || s.pruneOn !== "agent-message" || s.flushPolicy !== "roi") return { flush: false };
  const chains = input.chains ?? [];
  if ((input.pendingCount <= 0 && chains.length === 0) || input.flushing) return { flush: false };
  if (input.closingMessage && !isTextReply(input.closingMessage)) return { flush: false };
  const decision = chains.length > 0 ? chooseFlushChains(input.roi, chains).decision : decideRoi(input.roi);
  if (!decision.flush) return { flush: false, decision };
  return {
    flush: true,
    trigger: "roi",
    decision,
    ...(input.closingMessage ? { closingMessage: input.closingMessage } : {}),
  };
}

export interface ManualDecision {
  run: boolean;
  trigger?: "manual";
  notice?: string;
}

/**
 * CAP-TRIGGER-7: the manual command always runs a flush when enabled, even with nothing captured, so
 * that an `empty` flush-metrics row records the attempt.
 */
export function decideManual(enabled: boolean, capturedBatches: number): ManualDecision {
  if (!enabled) return { run: false, notice: "condense: disabled — enable it to summarize" };
  if (capturedBatches <= 0)
    return { run: true, trigger: "manual", notice: "condense: nothing pending — no batches to summarize" };
  return { run: true, trigger: "manual" };
}

export type RearmProbeResult = { ok: true; batches: readonly CapturedBatch[] } | { ok: false; error: unknown };

export interface RearmDecision {
  rearmed: boolean;
  error?: string;
}

/**
 * CAP-TRIGGER-9: after a reload the flag is armed iff the probe found work. The batches are discarded
 * (no queue rebuild, no flush at boot); a failing probe leaves the flag down and never fails the reload.
 */
export function decideRearm(enabled: boolean, probe: RearmProbeResult): RearmDecision {
  if (!enabled) return { rearmed: false };
  if (!probe.ok) {
    const msg = probe.error instanceof Error ? probe.error.message : String(probe.error);
    return { rearmed: false, error: `condense: reload rearm probe failed: ${msg}` };
  }
  return { rearmed: probe.batches.length > 0 };
}

/** Runs a probe (any capture function) and turns a throw into a `RearmProbeResult`. */
export function runRearmProbe(probe: () => readonly CapturedBatch[]): RearmProbeResult {
  try {
    return { ok: true, batches: probe() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** CAP-TRIGGER-10: the agent_end status text, or null when there is nothing to show. */
export function agentEndStatus(enabled: boolean, pendingCount: number, rearmed: boolean): string | null {
  if (!enabled) return null;
  if (pendingCount > 0) return `condense: ${pendingCount} pending`;
  if (rearmed) return "condense: recovered pending (reload)";
  return null;
}
