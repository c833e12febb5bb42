/**
 * Occurrence identity (CAP-IDX-1). Provider tool-call ids repeat inside one session, so the identity
 * of one concrete call+result is `id@resultTimestamp`. Records without a result timestamp keep the
 * bare id ("legacy" keys).
 */

export function occKey(id: string, ts: number | undefined | null): string {
  return typeof ts === "number" && Number.isFinite(ts) ? `${id}@${ts}` : id;
}

export interface ParsedOccKey {
  id: string;
  ts?: number;
}

/** Split at the last `@` when the suffix is all digits and the `@` is not at position 0. */
export function parseOccKey(key: string): ParsedOccKey {
  const at = key.lastIndexOf("@");
  if (at > 0 && at < key.length - 1) {
    const suffix = key.slice(at + 1);
    if (/^\d+$/.test(suffix)) return { id: key.slice(0, at), ts: Number(suffix) };
  }
  return { id: key };
}

export function bareToolCallId(key: string): string {
  return parseOccKey(key).id;
}

const SHORT_REF = /^t([1-9]\d*)$/;
export function shortRefNumber(ref: string): number | undefined {
  const m = SHORT_REF.exec(ref);
  return m ? Number(m[1]) : undefined;
}
