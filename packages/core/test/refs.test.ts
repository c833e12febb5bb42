import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mintRefs, refFooter, rewriteInlineRefs } from "../src/refs.ts";

describe("mintRefs (CAP-REF-1)", () => {
  it("mints consecutive refs from the counter and returns the next value", () => {
    expect(mintRefs(1, 3)).toEqual({ refs: ["t1", "t2", "t3"], next: 4 });
    expect(mintRefs(7, 0)).toEqual({ refs: [], next: 7 });
  });
  it("rejects a counter below 1 or a fractional count", () => {
    expect(() => mintRefs(0, 1)).toThrow(RangeError);
    expect(() => mintRefs(1, 1.5)).toThrow(RangeError);
  });
  it("never mints a number twice across successive batches", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 30 }), (counts) => {
        let next = 1;
        const seen = new Set<string>();
        for (const c of counts) {
          const m = mintRefs(next, c);
          for (const r of m.refs) {
            expect(seen.has(r)).toBe(false);
            seen.add(r);
          }
          next = m.next;
        }
        expect(seen.size).toBe(counts.reduce((a, b) => a + b, 0));
      }),
    );
  });
});

describe("refFooter (CAP-REF-2)", () => {
  it("has a blank line, a rule, a bold refs line and the query instruction, no trailing newline", () => {
    const f = refFooter(["t1", "t2"]);
    const lines = f.split("\n");
    expect(lines[0]).toBe("");
    expect(lines[1]).toBe("");
    expect(lines[2]).toBe("---");
    expect(lines[3]).toMatch(/^\*\*[^*]+\*\*: `t1`, `t2`$/);
    expect(lines[4]).toContain("`context_tree_query`");
    expect(lines).toHaveLength(5);
    expect(f.endsWith("\n")).toBe(false);
  });
  it("is empty when there is nothing to refer to", () => {
    expect(refFooter([])).toBe("");
  });
});

describe("rewriteInlineRefs (CAP-REF-3)", () => {
  it("AS-23: rewrites valid labels, strips invalid ones, leaves fenced code alone", () => {
    const input = [
      "- [[1:read]] Read a.ts",
      "- [[2:read]] x",
      "[[9:read]] y",
      "```",
      "[[1:read]]",
      "```",
      "**[[1:read]]** z",
    ].join("\n");
    const out = rewriteInlineRefs(input, ["read", "bash"]);
    expect(out.split("\n")).toEqual(["- `t1` Read a.ts", "- x", "y", "```", "[[1:read]]", "```", "**** z"]);
  });
  it("uses the batch's own refs and compares tool names case-insensitively", () => {
    expect(rewriteInlineRefs("* [[2:Bash]] ran tests", ["read", "bash"], ["t7", "t8"])).toBe("* `t8` ran tests");
    expect(rewriteInlineRefs("  [[1:read]]   indented", ["read"], ["t3"])).toBe("  `t3` indented");
  });
  it("strips labels in the middle of a line and leaves look-alikes untouched", () => {
    expect(rewriteInlineRefs("see [[1:read]] and argv[1] and [x]", ["read"])).toBe("see and argv[1] and [x]");
    expect(rewriteInlineRefs("[[0:read]] zero", ["read"])).toBe("zero");
  });
  it("never leaves a raw label outside fences", () => {
    const line = fc.stringMatching(/^[ -~]{0,20}$/);
    const label = fc.tuple(fc.nat(5), fc.constantFrom("read", "bash", "grep")).map(([n, t]) => `[[${n}:${t}]]`);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(line, label, line).map((p) => p.join(" ")),
          { maxLength: 8 },
        ),
        (lines) => {
          const text = lines.filter((l) => !l.includes("`")).join("\n");
          const out = rewriteInlineRefs(text, ["read", "bash"]);
          expect(out).not.toMatch(/\[\[\d+:[^[\]\s]+\]\]/);
        },
      ),
    );
  });
});
