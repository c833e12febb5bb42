/**
 * Context metrics (CAP-METRICS-2/3/4): thinking still billed in the open cycle, the share of the largest
 * chain (or open segment), and the tokens of tool output no flush has attempted yet. Plus the live
 * reclaim percentage of a render. Every function is one or two linear passes; per-message sizes are
 * serialized once, or taken from the caller's `sizeOf` (a cache per message object), and the chains
 * from the caller when it has detected them already.
 */
import { detectChains, type DetectedChain } from "./chain-detect.ts";
import { occKey } from "./keys.ts";
import {
  hasToolCall,
  isAssistant,
  isObject,
  isToolResult,
  numericTimestamp,
  toolCallArgs,
  toolCallsOf,
  type AgentMessage,
} from "./messages.ts";
import { isProtectedCall, protectionRules } from "./protection.ts";
import type { CondenseSettings } from "./settings.ts";
import { isSummarized, type CondenseState } from "./state.ts";

export interface ContextMetrics {
  openCycleThinkingTokens: number;
  largestChainSharePct: number;
  frontierGapTokens: number;
}

/** tokens(x) = round(chars / 4), JS rounding (half up). */
export const tokensOfChars = (chars: number): number => Math.round(chars / 4);

/** A message's size: its JSON length. */
export type SizeOf = (message: AgentMessage) => number;

export function jsonLength(x: unknown): number {
  try {
    return JSON.stringify(x)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** Index of the last text-only assistant, or -1. The open segment starts after it. */
function lastTextOnlyAssistant(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isAssistant(m) && !hasToolCall(m)) return i;
  }
  return -1;
}

/** CAP-METRICS-2: thinking blocks after the last text-only assistant (whole branch if none). */
export function openCycleThinkingTokens(messages: readonly AgentMessage[]): number {
  let chars = 0;
  for (let i = lastTextOnlyAssistant(messages) + 1; i < messages.length; i++) {
    const m = messages[i];
    if (!isAssistant(m)) continue;
    for (const b of m.content) if (isObject(b) && b.type === "thinking") chars += jsonLength(b);
  }
  return tokensOfChars(chars);
}

/**
 * CAP-METRICS-3: round(100 x max(largest chain, open segment) / total), chars = JSON length per
 * message. Closed chains span start user..final assistant; interrupted ones end before the next user.
 */
export function largestChainSharePct(
  messages: readonly AgentMessage[],
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
  sizes: readonly number[] = messages.map(jsonLength),
  chains: readonly DetectedChain[] = detectChains(messages, settings),
): number {
  const prefix = new Array<number>(messages.length + 1);
  prefix[0] = 0;
  for (let i = 0; i < messages.length; i++) prefix[i + 1] = prefix[i]! + (sizes[i] ?? 0);
  const total = prefix[messages.length]!;
  if (total === 0) return 0;
  let largest = 0;
  for (const c of chains) {
    if (c.endIndex < c.startIndex) continue;
    largest = Math.max(largest, prefix[c.endIndex + 1]! - prefix[c.startIndex]!);
  }
  const open = total - prefix[lastTextOnlyAssistant(messages) + 1]!;
  return Math.round((100 * Math.max(largest, open)) / total);
}

/**
 * CAP-METRICS-4: tokens of toolResult messages after the frontier boundary that are neither summarized
 * (occurrence key) nor protected. The boundary is the assistant at position `lastAttemptedTurnIndex`
 * that called `lastAttemptedToolCallId`; that turn's results up to and including that id are excluded.
 * Exclusion is positional: a later reuse of an excluded id still counts. No boundary -> whole branch.
 */
export function frontierGapTokens(
  messages: readonly AgentMessage[],
  state: CondenseState,
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
  sizeOf: SizeOf = jsonLength,
): number {
  const rules = protectionRules(settings);
  const f = state.frontier;
  let startAt = 0;
  let excluded: Set<string> | null = null;
  let boundaryAssistant = -1;
  if (f) {
    let count = -1;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!isAssistant(m)) continue;
      count++;
      if (count < f.lastAttemptedTurnIndex) continue;
      if (count === f.lastAttemptedTurnIndex) {
        const ids = toolCallsOf(m).map((b) => b.id);
        const at = ids.indexOf(f.lastAttemptedToolCallId);
        if (at !== -1) {
          excluded = new Set(ids.slice(0, at + 1));
          startAt = i + 1;
          boundaryAssistant = i;
        }
      }
      break;
    }
  }
  // Args of the nearest preceding assistant that called each id, for the path-protection check.
  const argsById = new Map<string, { name: string; args: Record<string, unknown> }>();
  if (boundaryAssistant >= 0) {
    const m = messages[boundaryAssistant];
    if (isAssistant(m)) for (const b of toolCallsOf(m)) argsById.set(b.id, { name: b.name, args: toolCallArgs(b) });
  }
  let inBoundaryTurn = excluded !== null;
  let tokens = 0;
  for (let i = startAt; i < messages.length; i++) {
    const m = messages[i];
    if (isAssistant(m)) {
      inBoundaryTurn = false;
      for (const b of toolCallsOf(m)) argsById.set(b.id, { name: b.name, args: toolCallArgs(b) });
      continue;
    }
    if (!isToolResult(m)) continue;
    if (inBoundaryTurn && excluded!.has(m.toolCallId)) continue;
    if (isSummarized(state, occKey(m.toolCallId, numericTimestamp(m)))) continue;
    const call = argsById.get(m.toolCallId);
    if (isProtectedCall(rules, m.toolName, call?.args)) continue;
    tokens += tokensOfChars(sizeOf(m));
  }
  return tokens;
}

export interface MetricsInputs {
  /** Each message's size (default: its JSON length, serialized here). */
  sizeOf?: SizeOf;
  /** detectChains(messages, settings) when the caller has it already. */
  chains?: readonly DetectedChain[];
}

/** All three metrics in one call; messages serialized once. Empty branch -> all zero. */
export function computeContextMetrics(
  messages: readonly AgentMessage[],
  state: CondenseState,
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
  inputs: MetricsInputs = {},
): ContextMetrics {
  const list = Array.isArray(messages) ? messages : [];
  if (list.length === 0) return { openCycleThinkingTokens: 0, largestChainSharePct: 0, frontierGapTokens: 0 };
  const sizeOf = inputs.sizeOf ?? jsonLength;
  return {
    openCycleThinkingTokens: openCycleThinkingTokens(list),
    largestChainSharePct: largestChainSharePct(list, settings, list.map(sizeOf), inputs.chains),
    frontierGapTokens: frontierGapTokens(list, state, settings, sizeOf),
  };
}

/**
 * Live reclaim of one render (CAP-UX-2 arithmetic): tokens before/after as chars/4, then
 * max(0, round((1 - A/B) x 100)). Zero when nothing was measured.
 */
export function reclaimPercent(beforeChars: number, afterChars: number): number {
  const b = tokensOfChars(beforeChars);
  const a = tokensOfChars(afterChars);
  if (!(b > 0)) return 0;
  return Math.max(0, Math.round((1 - a / b) * 100));
}
