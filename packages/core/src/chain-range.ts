/**
 * Positional chain-range resolution (CAP-RENDER-9). Fails closed: an interrupted chain, a missing or
 * duplicated boundary, or boundaries out of order resolve to null and nothing is dropped.
 */
import type { AgentMessage } from "./messages.ts";
import { isChainSynthetic } from "./render/message-shape.ts";
import type { ChainEntry } from "./state-types.ts";

export interface ResolvedRange { startIndex: number; endIndex: number }

export function resolveRange(
  messages: readonly AgentMessage[],
  entry: Pick<ChainEntry, "startUserTimestamp" | "finalAssistantTimestamp">,
): ResolvedRange | null {
  if (entry.finalAssistantTimestamp === null || entry.finalAssistantTimestamp === undefined) return null;
  let start = -1, end = -1, starts = 0, ends = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role?: unknown; timestamp?: unknown } | null;
    if (!m || typeof m !== "object") continue;
    if (m.role === "user" && m.timestamp === entry.startUserTimestamp) { starts++; start = i; }
    else if (m.role === "assistant" && m.timestamp === entry.finalAssistantTimestamp) { ends++; end = i; }
  }
  if (starts !== 1 || ends !== 1 || start >= end) return null;
  return { startIndex: start, endIndex: end };
}

export interface RangeIndexOptions {
  /**
   * Leave Condense's own `<compressed-chain>` user messages out of the start-boundary count. The
   * renderer sets this: a synthetic's timestamp (compressedAt) must never make a start ambiguous, or a
   * second render of rendered output would resolve differently from the first.
   */
  skipChainSynthetics?: boolean;
}

/** Index of every user / assistant timestamp, built once per message array for many entries. */
export function buildRangeIndex(messages: readonly AgentMessage[] | readonly unknown[], opts?: RangeIndexOptions) {
  const users = new Map<number, number[]>();
  const assistants = new Map<number, number[]>();
  const skipSynthetics = opts?.skipChainSynthetics === true;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as { role?: unknown; timestamp?: unknown } | null;
    if (!m || typeof m !== "object" || typeof m.timestamp !== "number") continue;
    const map = m.role === "user" ? users : m.role === "assistant" ? assistants : undefined;
    if (!map) continue;
    if (skipSynthetics && map === users && isChainSynthetic(m)) continue;
    const list = map.get(m.timestamp);
    if (list) list.push(i); else map.set(m.timestamp, [i]);
  }
  return {
    resolve(entry: Pick<ChainEntry, "startUserTimestamp" | "finalAssistantTimestamp">): ResolvedRange | null {
      if (entry.finalAssistantTimestamp === null || entry.finalAssistantTimestamp === undefined) return null;
      const s = users.get(entry.startUserTimestamp);
      const e = assistants.get(entry.finalAssistantTimestamp);
      if (!s || !e || s.length !== 1 || e.length !== 1 || s[0]! >= e[0]!) return null;
      return { startIndex: s[0]!, endIndex: e[0]! };
    },
  };
}
