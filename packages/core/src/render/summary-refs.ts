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
 * `timed(what, ts, id)`, a bare one by `bare(what, id)`, where `what` is the caller's record of what
 * covers a ref (so the tests are plain functions, not closures built per call). Read in place,
 * nothing allocated per ref.
 */
export function anyRefCovered<W>(
  m: { details?: unknown },
  what: W,
  timed: (what: W, ts: number, id: string) => boolean,
  bare: (what: W, id: string) => boolean,
): boolean {
  const d = m.details;
  if (!isObject(d)) return false;
  if (Array.isArray(d.toolCallRefs)) {
    const refs = d.toolCallRefs;
    for (let k = 0; k < refs.length; k++) {
      const r = refs[k];
      if (!isObject(r) || typeof r.toolCallId !== "string") continue;
      const ts = r.resultTimestamp;
      if (typeof ts === "number" && Number.isFinite(ts) ? timed(what, ts, r.toolCallId) : bare(what, r.toolCallId))
        return true;
    }
    return false;
  }
  if (Array.isArray(d.toolCallIds)) {
    const ids = d.toolCallIds;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (typeof id === "string" && bare(what, id)) return true;
    }
  }
  return false;
}
