import { describe, expect, it } from "vitest";
import { SERIALIZED_RESULT_MAX_CHARS, serializeBatch, serializeResultText } from "../src/batch-serialize.ts";
import type { CapturedBatch } from "../src/capture-types.ts";

const batch = (over: Partial<CapturedBatch> = {}): CapturedBatch => ({
  turnIndex: 2,
  timestamp: 1000,
  assistantText: "Looking at the config.",
  toolCalls: [
    {
      toolCallId: "a",
      toolName: "read",
      args: { path: "src/a.ts" },
      resultText: "export const a = 1;",
      isError: false,
      resultTimestamp: 1100,
    },
    {
      toolCallId: "b",
      toolName: "bash",
      args: { command: "npm test" },
      resultText: "1 failing",
      isError: true,
      resultTimestamp: 1200,
    },
  ],
  ...over,
});

describe("serializeBatch (CAP-CAPTURE-10)", () => {
  it("labels each call with its 1-based position and tool, separates blocks with ---", () => {
    const text = serializeBatch(batch());
    expect(text).toBe(
      [
        "Assistant said: Looking at the config.",
        "",
        '[[1:read]] Tool: read({\n  "path": "src/a.ts"\n})',
        "Result (OK): export const a = 1;",
        "---",
        '[[2:bash]] Tool: bash({\n  "command": "npm test"\n})',
        "Result (ERROR): 1 failing",
      ].join("\n"),
    );
  });
  it("omits the assistant line when the assistant said nothing", () => {
    expect(serializeBatch(batch({ assistantText: "  " })).startsWith("[[1:read]]")).toBe(true);
  });
  it("cuts results longer than the limit to a head and a tail and says how much was cut", () => {
    const long = "h".repeat(1500) + "m".repeat(345) + "t".repeat(500);
    const cut = serializeResultText(long);
    expect(cut).toBe(`${"h".repeat(1500)} ...[345 chars truncated]... ${"t".repeat(500)}`);
    const huge = serializeResultText(`begin\n${"x".repeat(50_000_000)}\nexit code 3`);
    expect(huge.length).toBeLessThan(SERIALIZED_RESULT_MAX_CHARS + 100);
    expect(huge.startsWith("begin\n") && huge.endsWith("\nexit code 3")).toBe(true);
    expect(serializeResultText("x".repeat(SERIALIZED_RESULT_MAX_CHARS))).toHaveLength(SERIALIZED_RESULT_MAX_CHARS);
  });
});
