/**
 * Client-side capture ids. The id is a hash of the session and the occurrence keys the POST carries,
 * so the live capture of a turn, its resend after a crash and a rescan that finds the same calls all
 * produce the same id: the API treats the repeat as a no-op.
 */
import { createHash } from "node:crypto";
import { occKey, storableText, type CapturedBatch } from "@condense/core";

/** The keys are those of the storable form the POST carries (ids with NUL or lone surrogates replaced). */
export function captureIdFor(sessionId: string, batches: readonly CapturedBatch[]): string {
  const h = createHash("sha256").update(sessionId).update("\u0000");
  for (const b of batches)
    for (const c of b.toolCalls) h.update(occKey(storableText(c.toolCallId), c.resultTimestamp)).update("\u0000");
  return `cap_${h.digest("hex").slice(0, 40)}`;
}
