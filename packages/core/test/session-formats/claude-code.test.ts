import { describe, expect, it } from "vitest";
import { readClaudeCodeSession } from "../../src/session-formats/claude-code.ts";

const j = (o: unknown) => JSON.stringify(o);
const entry = (type: "user" | "assistant", message: unknown, extra: Record<string, unknown> = {}) =>
  j({
    type,
    uuid: `u-${Math.random()}`,
    parentUuid: null,
    sessionId: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    isSidechain: false,
    message,
    ...extra,
  });

describe("Claude Code reader", () => {
  it("merges split assistant entries, maps tool_use/tool_result, stop reasons and thinking", () => {
    const text = [
      j({ type: "queue-operation", operation: "enqueue", sessionId: "s", timestamp: "2026-01-01T00:00:00Z" }),
      entry("user", { role: "user", content: "list files" }),
      entry("assistant", {
        id: "msg_1",
        role: "assistant",
        model: "claude-x",
        stop_reason: null,
        content: [{ type: "thinking", thinking: "hm", signature: "sig" }],
      }),
      entry("assistant", {
        id: "msg_1",
        role: "assistant",
        model: "claude-x",
        stop_reason: "tool_use",
        content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }],
      }),
      entry(
        "user",
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a\nb", is_error: false }] },
        { toolUseResult: { stdout: "a\nb" } },
      ),
      entry("assistant", {
        id: "msg_2",
        role: "assistant",
        stop_reason: "end_turn",
        content: [{ type: "text", text: "done" }],
      }),
    ].join("\n");
    const r = readClaudeCodeSession(text);
    expect(r.skipped).toEqual([]);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(r.messages[1]).toMatchObject({
      role: "assistant",
      stopReason: "toolUse",
      content: [
        { type: "thinking", thinking: "hm", thinkingSignature: "sig" },
        { type: "toolCall", id: "toolu_1", name: "Bash", arguments: { command: "ls" } },
      ],
    });
    expect(r.messages[2]).toEqual({
      role: "toolResult",
      toolCallId: "toolu_1",
      toolName: "Bash",
      content: [{ type: "text", text: "a\nb" }],
      isError: false,
      timestamp: Date.parse("2026-01-01T00:00:00.000Z"),
    });
    expect(r.messages[3]).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "done" }] });
  });

  it("tool_result blocks come first, errors and block content are kept, tool_reference becomes text", () => {
    const text = [
      entry("assistant", {
        id: "m",
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "Read", input: {} },
          { type: "tool_use", id: "t2", name: "ToolSearch", input: {} },
        ],
      }),
      entry("user", {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "boom" }], is_error: true },
          { type: "tool_result", tool_use_id: "t2", content: [{ type: "tool_reference", tool_name: "TaskCreate" }] },
          { type: "text", text: "also this" },
        ],
      }),
    ].join("\n");
    const r = readClaudeCodeSession(text);
    expect(r.messages.map((m) => m.role)).toEqual(["assistant", "toolResult", "toolResult", "user"]);
    expect(r.messages[1]).toMatchObject({ toolName: "Read", isError: true, content: [{ type: "text", text: "boom" }] });
    expect(r.messages[2]).toMatchObject({
      toolName: "ToolSearch",
      content: [{ type: "text", text: "[tool reference: TaskCreate]" }],
    });
  });

  it("parallel calls logged around a result join their response, so every call precedes its result", () => {
    const text = [
      entry("assistant", {
        id: "m1",
        role: "assistant",
        content: [{ type: "tool_use", id: "a", name: "Read", input: {} }],
      }),
      entry("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "b", content: "B" }] }),
      entry("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "A" }] }),
      entry("assistant", {
        id: "m1",
        role: "assistant",
        stop_reason: "tool_use",
        content: [{ type: "tool_use", id: "b", name: "Grep", input: {} }],
      }),
    ].join("\n");
    const r = readClaudeCodeSession(text);
    expect(r.messages.map((m) => m.role)).toEqual(["assistant", "toolResult", "toolResult"]);
    expect(r.messages[0]).toMatchObject({ stopReason: "toolUse", content: [{ id: "a" }, { id: "b" }] });
    expect(r.messages[1]).toMatchObject({ toolCallId: "b", toolName: "Grep" });
    expect(r.messages[2]).toMatchObject({ toolCallId: "a", toolName: "Read" });
  });

  it("compaction: apply starts at the last boundary, ignore drops the summary and keeps everything", () => {
    const text = [
      entry("user", { role: "user", content: "old" }),
      j({
        type: "system",
        subtype: "compact_boundary",
        content: "Conversation compacted",
        uuid: "b",
        timestamp: "2026-01-01T00:00:00Z",
      }),
      entry("user", { role: "user", content: "Summary: old stuff" }, { isCompactSummary: true }),
      entry("user", { role: "user", content: "new" }),
    ].join("\n");
    expect(readClaudeCodeSession(text).messages.map((m) => m.content)).toEqual(["Summary: old stuff", "new"]);
    const full = readClaudeCodeSession(text, { compaction: "ignore" });
    expect(full.messages.map((m) => m.content)).toEqual(["old", "new"]);
    expect(full.warnings.join(" ")).toMatch(/compaction summary/);
  });

  it("sidechains are left out with a warning; truncated and invalid lines are reported, never thrown", () => {
    const good = entry("user", { role: "user", content: "hi" });
    const cut = entry("assistant", {
      id: "m",
      role: "assistant",
      content: [{ type: "text", text: "long answer" }],
    }).slice(0, 60);
    const text = [
      good,
      entry("user", { role: "user", content: "sub" }, { isSidechain: true }),
      "{not json",
      j({ type: "user" }),
      cut,
    ].join("\n");
    const r = readClaudeCodeSession(text);
    expect(r.messages).toHaveLength(1);
    expect(r.skipped.map((s) => s.line)).toEqual([3, 4, 5]);
    expect(r.warnings.join(" ")).toMatch(/sidechain/);
    expect(readClaudeCodeSession("").messages).toEqual([]);
    expect(readClaudeCodeSession(undefined as unknown as string).messages).toEqual([]);
  });
});
