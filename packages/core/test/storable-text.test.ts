import { describe, expect, it } from "vitest";
import { storableBatch, storableText, type CapturedBatch } from "../src/index.ts";

describe("storable text (captures Postgres can hold)", () => {
  it("replaces NUL and lone surrogates with U+FFFD and keeps valid pairs", () => {
    expect(storableText("a\u0000b")).toBe("a\uFFFDb");
    expect(storableText("x\uD800y")).toBe("x\uFFFDy");
    expect(storableText("x\uDC00")).toBe("x\uFFFD");
    expect(storableText("ok \uD83D\uDE00")).toBe("ok \uD83D\uDE00");
  });

  it("keeps clean batches by reference and cleans result text, args keys and values", () => {
    const clean: CapturedBatch = {
      turnIndex: 1,
      timestamp: 5,
      assistantText: "hi",
      toolCalls: [
        {
          toolCallId: "c1",
          toolName: "bash",
          args: { command: "ls" },
          resultText: "out",
          isError: false,
          resultTimestamp: 6,
        },
      ],
    };
    expect(storableBatch(clean)).toBe(clean);
    const dirty: CapturedBatch = {
      ...clean,
      toolCalls: [{ ...clean.toolCalls[0]!, resultText: "bin\u0000ary", args: { "k\u0000": ["v\uD800"] } }],
    };
    const out = storableBatch(dirty);
    expect(out.toolCalls[0]!.resultText).toBe("bin\uFFFDary");
    expect(out.toolCalls[0]!.args).toEqual({ "k\uFFFD": ["v\uFFFD"] });
    expect(dirty.toolCalls[0]!.resultText).toBe("bin\u0000ary");
  });
});
