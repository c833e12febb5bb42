/**
 * The first pre-flush stages over the pending captures a flush loads: the protected filter and the
 * frontier trim. In the service every pending capture is by construction not yet attempted, so the
 * trim is index membership: a capture whose key already has a record or an alias (e.g. a chain
 * backfill reached it first) is settled as skipped instead of being summarized twice.
 */
import { callKey, isProtectedCall, protectionRules, type CapturedBatch, type CondenseSettings } from "@condense/core";
import type { CaptureSettlement, PendingBatch } from "@condense/db";

export interface PreparedBatches {
  batches: CapturedBatch[];
  /** Captures removed here, settled by the flush commit. */
  trimmed: CaptureSettlement[];
}

export function prepareBatches(
  pending: readonly PendingBatch[],
  indexedKeys: ReadonlySet<string>,
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
): PreparedBatches {
  const rules = protectionRules(settings);
  const trimmed: CaptureSettlement[] = [];
  const batches: CapturedBatch[] = [];
  for (const b of pending) {
    const calls = [];
    for (const c of b.toolCalls) {
      const key = callKey(c);
      if (indexedKeys.has(key)) trimmed.push({ key, status: "skipped", reason: "already-indexed" });
      else if (isProtectedCall(rules, c.toolName, c.args))
        trimmed.push({ key, status: "skipped", reason: "protected" });
      else {
        const { seq: _seq, occurrenceKey: _key, ...call } = c;
        calls.push(call);
      }
    }
    if (calls.length === 0) continue;
    const batch: CapturedBatch = {
      turnIndex: b.turnIndex,
      timestamp: b.timestamp,
      assistantText: b.assistantText,
      toolCalls: calls,
    };
    if (b.userTurnGroup !== undefined) batch.userTurnGroup = b.userTurnGroup;
    batches.push(batch);
  }
  return { batches, trimmed };
}
