import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentHash, normalizeForHash, storedPreview, utf8ByteLength } from "../src/content-hash.ts";

describe("content hash (CAP-IDX-7)", () => {
  it("AS-10 (normalization): identical output differing only in trailing whitespace / CRLF hashes the same", () => {
    const x = "line one\nline two\n\tindented\n";
    const again = "line one  \r\nline two\t\r\n\tindented   \r\n\r\n";
    expect(contentHash("read", again)).toBe(contentHash("read", x));
  });

  it("AS-11 (normalization): different content, case, inner tabs or tool name are different content", () => {
    const h = contentHash("bash", "a b");
    expect(contentHash("bash", "a  b")).not.toBe(h);
    expect(contentHash("bash", "A b")).not.toBe(h);
    expect(contentHash("bash", "a\tb")).not.toBe(h);
    expect(contentHash("read", "a b")).not.toBe(h);
  });

  it("is SHA-1 of toolName NUL normalized text", () => {
    const expected = createHash("sha1").update("read\0x\ny").digest("hex");
    expect(contentHash("read", "  x  \r\ny\r\n")).toBe(expected);
    expect(normalizeForHash("  x  \r\ny\r\n")).toBe("x\ny");
  });
});

describe("stored preview (CAP-SPILL-4)", () => {
  it("keeps text that fits whole", () => {
    expect(storedPreview("abc\ndef", 7)).toBe("abc\ndef");
  });
  it("cuts at the byte cap, then back to the last newline after position 0", () => {
    expect(storedPreview("abc\ndefgh", 7)).toBe("abc");
    expect(storedPreview("\nabcdefgh", 4)).toBe("\nabc");
    expect(storedPreview("abcdefgh", 4)).toBe("abcd");
  });
  it("never splits a multi-byte character", () => {
    const text = "aé😀z"; // 1 + 2 + 4 + 1 bytes
    expect(utf8ByteLength(text)).toBe(8);
    expect(storedPreview(text, 2)).toBe("a");
    expect(storedPreview(text, 3)).toBe("aé");
    expect(storedPreview(text, 6)).toBe("aé");
    expect(storedPreview(text, 7)).toBe("aé😀");
  });
  it("a zero cap gives an empty preview", () => {
    expect(storedPreview("abc", 0)).toBe("");
  });
});
