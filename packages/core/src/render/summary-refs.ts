/**
 * The tool-call occurrences a per-batch summary message covers, read from its `details`: modern
 * `toolCallRefs [{shortId, toolCallId, resultTimestamp?}]`, or legacy `toolCallIds` (bare ids).
 * A ref with a finite `resultTimestamp` names one occurrence (id + timestamp); any other ref, and every
 * legacy id, names a bare id. Read in place on demand: only summary messages outside compressed ranges
 * are read, nothing is allocated per ref, and a per-object cache would miss anyway on the fresh clones
 * pi hands every render.
 */
import { isObject } from "../messages.ts";

/**
 * Whether any ref of the message is covered, in their order: a timestamped ref by
 * `timed(ts, id)`, a bare one by `bare(id)`. Read in place, nothing allocated per ref.
 */
export function anyRefCovered(
  m: { details?: unknown },
  timed: (ts: number, id: string) => boolean,
  bare: (id: string) => boolean,
): boolean {
  const d = m.details;
  if (!isObject(d)) return false;
  if (Array.isArray(d.toolCallRefs)) {
    const refs = d.toolCallRefs;
    for (let k = 0; k < refs.length; k++) {
      const r = refs[k];
      if (!isObject(r) || typeof r.toolCallId !== "string") continue;
      const ts = r.resultTimestamp;
      if (typeof ts === "number" && Number.isFinite(ts) ? timed(ts, r.toolCallId) : bare(r.toolCallId)) return true;
    }
    return false;
  }
  if (Array.isArray(d.toolCallIds)) {
    const ids = d.toolCallIds;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (typeof id === "string" && bare(id)) return true;
    }
  }
  return false;
}
