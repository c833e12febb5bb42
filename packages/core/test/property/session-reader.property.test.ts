/** The session reader never throws, whatever the bytes, and every message it returns has a role. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readPiSession } from "../../src/session-reader.ts";

const entryArb = fc.oneof(
  fc.record({
    type: fc.constant("message"),
    id: fc.option(fc.constantFrom("a", "b", "c", "d")),
    parentId: fc.option(fc.constantFrom("a", "b", "c", "d")),
    message: fc.anything(),
  }),
  fc.record({
    type: fc.constantFrom("session", "compaction", "custom_message", "branch_summary", "custom"),
    id: fc.option(fc.constantFrom("a", "b", "c", "e")),
    firstKeptEntryId: fc.option(fc.string()),
    summary: fc.anything(),
    content: fc.anything(),
  }),
  fc.anything(),
);

describe("session reader properties", () => {
  it("never throws on arbitrary text or on shuffled, glued and broken entries", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(() => readPiSession(text)).not.toThrow();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(entryArb, fc.constantFrom("\n", "", "\n\n", "x\n")), { maxLength: 30 }),
        fc.constantFrom("apply" as const, "ignore" as const),
        (parts, compaction) => {
          const text = parts.map(([e, sep]) => `${JSON.stringify(e) ?? "undefined"}${sep}`).join("");
          const r = readPiSession(text, { compaction });
          for (const m of r.messages) expect(typeof m.role).toBe("string");
        },
      ),
      { numRuns: 300 },
    );
  });
});
