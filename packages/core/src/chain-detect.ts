/**
 * Chain detection (CAP-CHAIN-1) and closing-message threading (CAP-CHAIN-4). A chain is a user message,
 * the tool-using assistant turns that follow, and the first text-only assistant reply that closes it.
 * Detection is one forward pass; it records message indices as well as timestamps so metrics can use
 * the spans without searching for them again.
 */
import { occKey } from "./keys.ts";
import {
  contentText,
  isAssistant,
  isToolResult,
  isUser,
  numericTimestamp,
  toolCallArgs,
  toolCallsOf,
  type AgentMessage,
} from "./messages.ts";
import { isProtectedCall, protectionRules } from "./protection.ts";
import type { CondenseSettings } from "./settings.ts";
import { isCompressedChainText } from "./texts.ts";

export interface DetectedChain {
  /** Timestamp of the start user message; null when it has none (such a chain cannot be compressed). */
  startUserTimestamp: number | null;
  /** Closing text-only assistant's timestamp; null = interrupted by the next user message. */
  finalAssistantTimestamp: number | null;
  /** Bare ids of every call and result inside the chain, first-seen order, no repeats. */
  middleToolCallIds: string[];
  /** `id@resultTimestamp` of every result inside the chain (bare id for a result without timestamp). */
  middleOccurrenceKeys: string[];
  /** Bare ids protected by name/args (calls) or by name (results). */
  protectedToolCallIds: string[];
  startIndex: number;
  /** Index of the closing assistant; for an interrupted chain, the message before the next user. */
  endIndex: number;
  interrupted: boolean;
}

/** A synthetic chain message inserted at render time; it never starts (or interrupts) a chain. */
export function isSyntheticChainMessage(m: unknown): boolean {
  return isUser(m) && isCompressedChainText(contentText(m.content));
}

interface OpenChain {
  chain: DetectedChain;
  ids: Set<string>;
  keys: Set<string>;
  protectedIds: Set<string>;
}

/**
 * CAP-CHAIN-1. Roles other than user/assistant/toolResult are ignored. A trailing open chain is not
 * emitted. Output is chronological.
 */
export function detectChains(
  messages: readonly AgentMessage[],
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
): DetectedChain[] {
  const rules = protectionRules(settings);
  const out: DetectedChain[] = [];
  const list = Array.isArray(messages) ? messages : [];
  let open: OpenChain | null = null;
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (isUser(m)) {
      if (isSyntheticChainMessage(m)) continue;
      if (open) {
        open.chain.finalAssistantTimestamp = null;
        open.chain.interrupted = true;
        open.chain.endIndex = Math.max(open.chain.startIndex, i - 1);
        out.push(open.chain);
      }
      open = {
        chain: {
          startUserTimestamp: numericTimestamp(m) ?? null,
          finalAssistantTimestamp: null,
          middleToolCallIds: [],
          middleOccurrenceKeys: [],
          protectedToolCallIds: [],
          startIndex: i,
          endIndex: -1,
          interrupted: false,
        },
        ids: new Set(),
        keys: new Set(),
        protectedIds: new Set(),
      };
      continue;
    }
    if (!open) continue;
    if (isAssistant(m)) {
      const calls = toolCallsOf(m);
      if (calls.length === 0) {
        open.chain.finalAssistantTimestamp = numericTimestamp(m) ?? null;
        open.chain.endIndex = i;
        // A closing assistant without a timestamp cannot be resolved; keep it as interrupted-like.
        if (open.chain.finalAssistantTimestamp === null) open.chain.interrupted = true;
        out.push(open.chain);
        open = null;
        continue;
      }
      for (const c of calls) {
        addOnce(open.ids, open.chain.middleToolCallIds, c.id);
        if (isProtectedCall(rules, c.name, toolCallArgs(c)))
          addOnce(open.protectedIds, open.chain.protectedToolCallIds, c.id);
      }
    } else if (isToolResult(m)) {
      addOnce(open.ids, open.chain.middleToolCallIds, m.toolCallId);
      addOnce(open.keys, open.chain.middleOccurrenceKeys, occKey(m.toolCallId, numericTimestamp(m)));
      if (rules.tools.has(m.toolName)) addOnce(open.protectedIds, open.chain.protectedToolCallIds, m.toolCallId);
    }
  }
  return out;
}

function addOnce(seen: Set<string>, list: string[], value: string): void {
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

/**
 * CAP-CHAIN-4: on the reply path the closing assistant is not persisted yet; append it unless the
 * array already ends with a message of the same role and timestamp. Returns the input when unchanged.
 */
export function withClosingMessage(
  messages: readonly AgentMessage[],
  closing: AgentMessage | undefined,
): readonly AgentMessage[] {
  if (!closing) return messages;
  const last = messages[messages.length - 1];
  if (last && last.role === closing.role && numericTimestamp(last) === numericTimestamp(closing)) return messages;
  return [...messages, closing];
}
