/**
 * The render's time-dependent decisions, taken once when a state version is applied instead of on
 * every render (issue: the prefix moves only when state changes). Two rules depend on how many turns
 * have passed: error purge (a failed call's arguments go once it is `cooldownTurns` assistant turns
 * old, CAP-RENDER-7) and recovery grace (a recovered output stays verbatim for K user turns,
 * CAP-QUERY-5). Counted at render time, both change earlier messages as turns pass, which rewrites the
 * provider's cached prefix between two flushes. Decided at apply time, every render until the next
 * applied state is a byte-exact prefix of the next render of the extended history: new turns never
 * reach back.
 */
import { occKey } from "../keys.ts";
import { isObject } from "../messages.ts";
import { graceSet } from "../recovery-grace.ts";
import type { CondenseSettings } from "../settings.ts";
import { isReadableAssistant, isReadableToolResult } from "./message-shape.ts";

export interface RenderPolicy {
  /** Occurrence keys of failed tool results old enough for their call's arguments to be purged. */
  readonly purgeKeys: ReadonlySet<string>;
  /** Occurrence keys of context_tree_query results still in recovery grace (never stubbed). */
  readonly graceKeys: ReadonlySet<string>;
}

/** The occurrence key of a tool result: `id@timestamp`, or the bare id without a numeric timestamp. */
export function resultKey(m: { toolCallId: string; timestamp?: unknown }): string {
  const ts = typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
  return occKey(m.toolCallId, ts);
}

/**
 * The policy for the history as it stands now (the messages of the first render after a state is
 * applied). Error purge: a failed result is `current - (assistant turns up to its opener)` turns old.
 */
export function decideRenderPolicy(messages: readonly unknown[], settings: CondenseSettings): RenderPolicy {
  const purgeKeys = new Set<string>();
  const pe = settings.purgeErrors;
  if (pe && pe.enabled !== false && Array.isArray(messages)) {
    const cooldown = typeof pe.cooldownTurns === "number" ? pe.cooldownTurns : 2;
    const failed: { key: string; turns: number }[] = [];
    let turns = 0;
    for (const m of messages) {
      if (isReadableAssistant(m)) turns++;
      else if (isReadableToolResult(m) && isObject(m) && m.isError === true) failed.push({ key: resultKey(m), turns });
    }
    for (const f of failed) if (turns - f.turns >= cooldown) purgeKeys.add(f.key);
  }
  const k = settings.recoveryGraceTurns;
  const graceKeys = typeof k === "number" && k > 0 ? graceSet(messages, k) : new Set<string>();
  return { purgeKeys, graceKeys };
}
