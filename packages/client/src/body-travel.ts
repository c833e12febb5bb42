/**
 * How a capture travels when its results are large: every result over INLINE_RESULT_MAX_BYTES, and
 * then the largest remaining ones until the POST is under CAPTURE_POST_TARGET_BYTES, leave the
 * capture and are uploaded first in parts (POST /bodies); the capture carries a `body` reference
 * (parts, characters, sha256) in their place. So no capture is ever too large for the API's body
 * limit, whatever its outputs, and the limit stays what it is.
 */
import { createHash } from "node:crypto";
import type { CapturedBatchInput } from "@condense/contract";
import { occKey, type CapturedBatch, type CapturedToolCall } from "@condense/core";

/** Results over this many UTF-8 bytes always travel out of line (the API's per-result limit is 2 MiB). */
export const INLINE_RESULT_MAX_BYTES = 256 * 1024;
/** A capture POST stays under this (the API's default request limit is 8 MiB). */
export const CAPTURE_POST_TARGET_BYTES = 4 * 1024 * 1024;
/** Characters per uploaded part: even fully escaped JSON stays well under the request limit. */
export const BODY_PART_CHARS = 256 * 1024;

export interface BodyUpload {
  key: string;
  parts: { part: number; start: number; text: string }[];
  chars: number;
  sha256: string;
}

export interface CaptureTravel {
  /** The batches as the capture POST carries them (the contract's capture batch). */
  batches: CapturedBatchInput[];
  uploads: BodyUpload[];
}

/** Parts of at most `size` characters, never splitting a surrogate pair. */
export function splitParts(text: string, size = BODY_PART_CHARS): { part: number; start: number; text: string }[] {
  const out: { part: number; start: number; text: string }[] = [];
  let at = 0;
  while (at < text.length || out.length === 0) {
    let end = Math.min(text.length, at + size);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
    out.push({ part: out.length, start: at, text: text.slice(at, end) });
    at = end;
  }
  return out;
}

export function planTravel(
  batches: readonly CapturedBatch[],
  limits = { inlineMax: INLINE_RESULT_MAX_BYTES, postTarget: CAPTURE_POST_TARGET_BYTES },
): CaptureTravel {
  const sizes = batches.map((b) => b.toolCalls.map((c) => Buffer.byteLength(c.resultText, "utf8")));
  const out = new Set<string>();
  let inline = 0;
  const candidates: { at: string; bytes: number }[] = [];
  batches.forEach((b, bi) => {
    b.toolCalls.forEach((_, ci) => {
      const bytes = sizes[bi]![ci]!;
      if (bytes > limits.inlineMax) out.add(`${bi}:${ci}`);
      else {
        inline += bytes;
        candidates.push({ at: `${bi}:${ci}`, bytes });
      }
    });
  });
  // Largest first, until the inline results fit the POST target (args and framing are small beside them).
  candidates.sort((x, y) => y.bytes - x.bytes);
  for (const c of candidates) {
    if (inline <= limits.postTarget) break;
    out.add(c.at);
    inline -= c.bytes;
  }
  if (out.size === 0) return { batches: [...batches], uploads: [] };
  const uploads: BodyUpload[] = [];
  const wire = batches.map((b, bi) => ({
    ...b,
    toolCalls: b.toolCalls.map((c: CapturedToolCall, ci) => {
      if (!out.has(`${bi}:${ci}`)) return c;
      const sha256 = createHash("sha256").update(c.resultText, "utf8").digest("hex");
      const parts = splitParts(c.resultText);
      uploads.push({ key: occKey(c.toolCallId, c.resultTimestamp), parts, chars: c.resultText.length, sha256 });
      return { ...c, resultText: "", body: { parts: parts.length, chars: c.resultText.length, sha256 } };
    }),
  }));
  return { batches: wire, uploads };
}
