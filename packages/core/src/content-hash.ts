/**
 * Content identity of a tool output (CAP-IDX-7) and the head preview kept for outputs stored out of
 * line (CAP-SPILL-4). Both are pure: the hash feeds cross-flush dedup, the preview is what a stub shows
 * when the full body is not inline.
 */
import { createHash } from "node:crypto";

/**
 * CRLF -> LF, trailing spaces/tabs stripped per line, whole string trimmed. Case, tabs inside a line and
 * internal whitespace are kept: two outputs that differ there are different content.
 */
export function normalizeForHash(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(/[ \t]+$/gm, "")
    .trim();
}

/** SHA-1 hex of `toolName`, a NUL byte and the normalized text; the tool name keeps `read` and `bash` apart. */
export function contentHash(toolName: string, text: string): string {
  return createHash("sha1").update(toolName).update("\0").update(normalizeForHash(text)).digest("hex");
}

/** UTF-8 length without Buffer or TextEncoder (core stays platform-neutral). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // BMP char, or a lone surrogate (encoded as U+FFFD, 3 bytes)
  }
  return bytes;
}

/**
 * Head preview (CAP-SPILL-4): the whole text when it fits in `maxBytes` UTF-8 bytes; otherwise the
 * longest prefix that fits without splitting a character, shortened to its last newline when there is
 * one after position 0 (so the preview ends on a whole line). The newline itself is not kept.
 */
export function storedPreview(text: string, maxBytes: number): string {
  const cap = Number.isFinite(maxBytes) && maxBytes > 0 ? Math.floor(maxBytes) : 0;
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    let size: number;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && end + 1 < text.length && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > cap) break;
    bytes += size;
    end += units;
  }
  if (end >= text.length) return text;
  const head = text.slice(0, end);
  const nl = head.lastIndexOf("\n");
  return nl > 0 ? head.slice(0, nl) : head;
}
