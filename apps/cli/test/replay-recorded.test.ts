/**
 * The as-recorded comparison bills Condense on top of the host's compacted context: the host's
 * context after its compaction, then Condense's render of what came after it.
 */
import { A, R, S, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { recordedContext, recordedRender, type HostCompaction } from "../src/replay/recorded-baseline.ts";

describe("Condense on the recorded (host-compacted) context", () => {
  const raw = [
    U(1, "go", { plain: true }),
    A(2, "a"),
    R(3, "a", "A".repeat(400)),
    U(4, "go", { plain: true }),
    A(5, "b"),
    R(6, "b", "B"),
  ];
  const compaction: HostCompaction = {
    fullCount: 3,
    context: [U(0, "host summary of the first turn", { plain: true })],
  };
  const stubbedB = R(6, "b", "[stub]");

  it("before the first compaction, the render itself", () => {
    const rendered = [U(1, "go", { plain: true }), A(2, "a")];
    expect(recordedRender(raw.slice(0, 2), rendered, [compaction])).toBe(rendered);
  });

  it("after it: the host's context, then the render of what came after the compaction point", () => {
    // The render: the pre-compaction part condensed, a summary of it, then the later messages condensed.
    const rendered = [
      U(1, "go", { plain: true }),
      A(2, "a"),
      R(3, "a", "[stub]"),
      S(3.5, ["a"], "summary of a"),
      U(4, "go", { plain: true }),
      A(5, "b"),
      stubbedB,
      S(7, ["b"], "summary of b"),
    ];
    const out = recordedRender(raw, rendered, [compaction]);
    expect(out).toEqual([
      compaction.context[0],
      U(4, "go", { plain: true }),
      A(5, "b"),
      stubbedB,
      S(7, ["b"], "summary of b"),
    ]);
    // The baseline it is compared with: the same host context, then the raw messages after it.
    expect(recordedContext(raw, [compaction])).toEqual([compaction.context[0], ...raw.slice(3)]);
  });
});
