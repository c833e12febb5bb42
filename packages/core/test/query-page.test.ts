import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodyPage, pageOfWindow, pageWindowChars, type PageLimits } from "../src/query-page.ts";

/** Every page in order, starting at 0, following `next`. */
function allPages(body: string, limits: PageLimits) {
  const pages = [];
  let at: number | null = 0;
  while (at !== null) {
    const p = bodyPage(body, at, limits);
    pages.push(p);
    if (p.next !== null) expect(p.next).toBeGreaterThan(at);
    at = p.next;
  }
  return pages;
}

const utf8 = (s: string) => Buffer.byteLength(s, "utf8");

describe("body pages", () => {
  it("concatenate to the body byte for byte, within both limits, ending on line boundaries when a line fits", () => {
    const text = fc
      .array(
        fc.oneof(fc.constant("\n"), fc.string({ unit: "binary", maxLength: 40 }), fc.constant("😀"), fc.constant("é")),
        { maxLength: 60 },
      )
      .map((a) => a.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 4, max: 80 }), (body, maxLines, maxBytes) => {
        const limits = { maxLines, maxBytes };
        const pages = allPages(body, limits);
        expect(pages.map((p) => p.text).join("")).toBe(body);
        for (const p of pages) {
          expect(p.text).toBe(body.slice(p.offset, p.end));
          expect(utf8(p.text)).toBeLessThanOrEqual(maxBytes);
          expect(p.text.split("\n").length - 1).toBeLessThanOrEqual(maxLines);
          // a cut inside a line only when that line alone is over the byte limit
          if (p.next !== null && !p.text.endsWith("\n")) expect(p.text.includes("\n")).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("a page cut from a window of pageWindowChars characters equals the page cut from the whole body", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.nat(300), (body, at) => {
        const limits = { maxLines: 3, maxBytes: 40 };
        const full = bodyPage(body, at, limits);
        const window = body.slice(full.offset, full.offset + pageWindowChars(limits));
        expect(pageOfWindow(window, full.offset, body.length, limits)).toEqual(full);
      }),
      { numRuns: 300 },
    );
  });

  it("2,002 lines page at 2,000 lines, then the rest", () => {
    const body =
      Array.from({ length: 2000 }, (_, i) => String(1001 + i)).join("\n") +
      "\n\n[Showing lines 1001-3000 of 3000. Full output: /tmp/x.log]";
    const [first, second, ...more] = allPages(body, { maxLines: 2000, maxBytes: 50 * 1024 });
    expect(more).toEqual([]);
    expect(first!.text.split("\n")).toHaveLength(2001);
    expect(first!.text.endsWith("3000\n")).toBe(true);
    expect(second!.text).toBe("\n[Showing lines 1001-3000 of 3000. Full output: /tmp/x.log]");
  });

  it("an offset inside a surrogate pair starts at the pair; an offset past the end is an empty last page", () => {
    expect(bodyPage("a😀b", 2).text).toBe("😀b");
    expect(bodyPage("abc", 99)).toEqual({ text: "", offset: 3, end: 3, total: 3, next: null });
  });
});
