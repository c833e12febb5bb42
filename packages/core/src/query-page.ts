/**
 * Pages of a recovered body (CAP-QUERY-2, extended): `context_tree_query` never cuts an original
 * without saying which call returns the rest. A page is a slice of the body starting at a character
 * offset (UTF-16 code units, what a JS string index counts) and ending on a line boundary when at
 * least one whole line fits, so concatenating the pages in order gives the body back byte for byte.
 * A single line longer than the byte limit is split inside the line, never inside a surrogate pair.
 */

export interface PageLimits {
  /** Lines per page. */
  maxLines: number;
  /** UTF-8 bytes per page. */
  maxBytes: number;
}

/** The host's default read limits (2,000 lines, 50 KiB), so one recovery cannot flood the context. */
export const DEFAULT_PAGE_LIMITS: Readonly<PageLimits> = Object.freeze({ maxLines: 2000, maxBytes: 50 * 1024 });

export interface BodyPage {
  /** The page: exactly `body.slice(offset, end)`. */
  text: string;
  offset: number;
  /** Offset just past the page; equals `total` on the last page. */
  end: number;
  /** Length of the whole body in UTF-16 code units. */
  total: number;
  /** Offset of the next page, or null when this page reaches the end. */
  next: number | null;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * The page of `window` that starts at its first character. `window` is the body from `offset` on
 * (it may stop early: `total` says how long the body really is); it must hold at least
 * `maxBytes + 1` characters when the body is that long, which is all one page can ever need (every
 * character is at least one byte), so a caller that reads stored bodies in parts reads only that much.
 */
export function pageOfWindow(
  window: string,
  offset: number,
  total: number,
  limits: PageLimits = DEFAULT_PAGE_LIMITS,
): BodyPage {
  const maxLines = Math.max(1, Math.floor(limits.maxLines));
  const maxBytes = Math.max(4, Math.floor(limits.maxBytes));
  let bytes = 0;
  let lines = 0;
  let i = 0;
  /** Index just past the last newline taken: the page's end when it must stop inside a line. */
  let lastLineEnd = -1;
  let stopped = false;
  while (i < window.length) {
    const c = window.charCodeAt(i);
    let units = 1;
    let size: number;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (isHigh(c) && i + 1 < window.length && isLow(window.charCodeAt(i + 1))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) {
      stopped = true;
      break;
    }
    bytes += size;
    i += units;
    if (c === 0x0a) {
      lines++;
      lastLineEnd = i;
      if (lines >= maxLines) {
        stopped = i < window.length || offset + i < total;
        break;
      }
    }
  }
  // A window that ends before the body does is a cut too.
  if (!stopped && offset + i < total) stopped = true;
  let len = i;
  // Cut inside a line while a whole line fits: end the page on the last line boundary instead.
  if (stopped && lastLineEnd > 0 && len !== lastLineEnd) len = lastLineEnd;
  const end = offset + len;
  const reachesEnd = end >= total;
  return { text: window.slice(0, len), offset, end, total, next: reachesEnd ? null : end };
}

/** The page of a whole body at `offset` (clamped into the body, never splitting a surrogate pair). */
export function bodyPage(body: string, offset = 0, limits: PageLimits = DEFAULT_PAGE_LIMITS): BodyPage {
  let start = Math.min(Math.max(0, Math.floor(Number.isFinite(offset) ? offset : 0)), body.length);
  if (start > 0 && start < body.length && isLow(body.charCodeAt(start)) && isHigh(body.charCodeAt(start - 1))) start--;
  const window = body.slice(start, start + Math.max(4, Math.floor(limits.maxBytes)) + 1);
  return pageOfWindow(window, start, body.length, limits);
}

/** Window length a caller must read from `offset` to cut one page (see pageOfWindow). */
export function pageWindowChars(limits: PageLimits = DEFAULT_PAGE_LIMITS): number {
  return Math.max(4, Math.floor(limits.maxBytes)) + 1;
}
