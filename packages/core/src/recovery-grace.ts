/**
 * Recovery grace (CAP-QUERY-5/6). An output the model just recovered through context_tree_query stays
 * verbatim for K user-turn-groups, so the model can use what it asked for; then it is stubbed again.
 * Grace is enforced at render (phase 1) and at chain eligibility only, never at capture (a capture-time
 * exclusion would be lost forever behind the frontier). At render the grace set is part of the render
 * policy, decided when a state version is applied (render/render-policy.ts): a grace ends at the next
 * applied state after its K turns, so its expiry never moves the cached prefix between two flushes.
 */
import { bareToolCallId, occKey, parseOccKey } from "./keys.ts";
import { isObject } from "./messages.ts";
import { isChainSynthetic } from "./render/message-shape.ts";
import { QUERY_TOOL_NAME } from "./texts.ts";

/**
 * Occurrence keys (`id@ts`, bare id without a timestamp) of every context_tree_query result whose age
 * in user-turn-groups is at most `k`: age = (user messages in the array) - (user messages before it).
 * `k <= 0` disables grace. Condense's own synthetic chain messages are not user turns and are not
 * counted, so inserting them never ages a recovery (and re-rendering stays idempotent).
 */
export function graceSet(messages: readonly unknown[], k: number): Set<string> {
  const out = new Set<string>();
  if (!(k > 0) || !Array.isArray(messages)) return out;
  let users = 0;
  let pending: { key: string; seen: number }[] | undefined;
  for (const m of messages) {
    if (!isObject(m)) continue;
    if (m.role === "user") {
      if (!isChainSynthetic(m)) users++;
    } else if (m.role === "toolResult" && m.toolName === QUERY_TOOL_NAME && typeof m.toolCallId === "string") {
      (pending ??= []).push({ key: occKey(m.toolCallId, m.timestamp as number | undefined), seen: users });
    }
  }
  if (pending) for (const p of pending) if (users - p.seen <= k) out.add(p.key);
  return out;
}

/** What chain eligibility needs of a detected chain (CAP-CHAIN-1 detector output). */
export interface GraceChain {
  middleOccurrenceKeys?: readonly string[];
  middleToolCallIds: readonly string[];
}

/** Lookup keys of a chain: its occurrence keys, else (pre-occurrence data) its bare ids. */
function lookupKeysOf(chain: GraceChain): readonly string[] {
  return chain.middleOccurrenceKeys && chain.middleOccurrenceKeys.length > 0
    ? chain.middleOccurrenceKeys
    : chain.middleToolCallIds;
}

/**
 * CAP-QUERY-6: a chain is deferred while any lookup key is in grace, or a bare-id grace entry (a query
 * result without a timestamp) matches the bare id of any lookup key.
 */
export function isChainDeferred(chain: GraceChain, grace: ReadonlySet<string>): boolean {
  if (grace.size === 0) return false;
  for (const key of lookupKeysOf(chain)) {
    if (grace.has(key)) return true;
    const bare = bareToolCallId(key);
    if (bare !== key && grace.has(bare) && parseOccKey(bare).ts === undefined) return true;
  }
  return false;
}
