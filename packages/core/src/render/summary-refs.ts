/**
 * The tool-call occurrences a per-batch summary message covers, read from its `details`: modern
 * `toolCallRefs [{shortId, toolCallId, resultTimestamp?}]`, or legacy `toolCallIds` (bare ids).
 * Parsed on demand: only summary messages outside compressed ranges are read, and a per-object cache
 * would miss anyway on the fresh clones pi hands every render.
 */
import { isObject } from "../messages.ts";

export interface CoveredRef { id: string; ts?: number }

const NONE: readonly CoveredRef[] = Object.freeze([]);

export function summaryRefs(m: { details?: unknown }): readonly CoveredRef[] {
  const d = m.details;
  const out: CoveredRef[] = [];
  if (isObject(d) && Array.isArray(d.toolCallRefs)) {
    for (const r of d.toolCallRefs) {
      if (!isObject(r) || typeof r.toolCallId !== "string") continue;
      const ts = r.resultTimestamp;
      out.push(typeof ts === "number" && Number.isFinite(ts) ? { id: r.toolCallId, ts } : { id: r.toolCallId });
    }
  } else if (isObject(d) && Array.isArray(d.toolCallIds)) {
    for (const id of d.toolCallIds) if (typeof id === "string") out.push({ id });
  }
  return out.length === 0 ? NONE : out;
}
