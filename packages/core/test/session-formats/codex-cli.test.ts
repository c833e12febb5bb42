import { describe, expect, it } from "vitest";
import { readCodexSession } from "../../src/session-formats/codex-cli.ts";

const j = (o: unknown) => JSON.stringify(o);
const item = (payload: unknown, ts = "2026-03-12T15:10:41.041Z") =>
  j({ timestamp: ts, type: "response_item", payload });

describe("Codex CLI reader", () => {
  it("merges one response's items into an assistant message and pairs outputs by call_id", () => {
    const text = [
      j({ timestamp: "2026-03-12T15:10:41.041Z", type: "session_meta", payload: { id: "x", cwd: "/w" } }),
      item({ type: "message", role: "developer", content: [{ type: "input_text", text: "rules" }] }),
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "review it" }] }),
      j({
        timestamp: "2026-03-12T15:10:41.041Z",
        type: "event_msg",
        payload: { type: "user_message", message: "review it" },
      }),
      item({ type: "reasoning", summary: [{ type: "summary_text", text: "plan" }], encrypted_content: "xx" }),
      item({ type: "message", role: "assistant", content: [{ type: "output_text", text: "checking" }] }),
      item({ type: "function_call", name: "exec_command", arguments: '{"cmd":"rg x"}', call_id: "call_1" }),
      item({ type: "function_call", name: "exec_command", arguments: "not json", call_id: "call_2" }),
      item({ type: "function_call_output", call_id: "call_1", output: "hit" }),
      item({ type: "function_call_output", call_id: "call_2", output: { content: "denied", success: false } }),
      item({ type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] }),
    ].join("\n");
    const r = readCodexSession(text);
    expect(r.skipped).toEqual([]);
    expect(r.messages.map((m) => m.role)).toEqual([
      "user",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
    ]);
    expect(r.messages[2]).toMatchObject({
      stopReason: "toolUse",
      content: [
        { type: "thinking", thinking: "plan" },
        { type: "text", text: "checking" },
        { type: "toolCall", id: "call_1", name: "exec_command", arguments: { cmd: "rg x" } },
        { type: "toolCall", id: "call_2", name: "exec_command", arguments: { input: "not json" } },
      ],
    });
    expect(r.messages[3]).toMatchObject({
      toolCallId: "call_1",
      toolName: "exec_command",
      content: [{ type: "text", text: "hit" }],
      isError: false,
    });
    expect(r.messages[4]).toMatchObject({
      toolCallId: "call_2",
      isError: true,
      content: [{ type: "text", text: "denied" }],
    });
    expect(r.messages[5]).toMatchObject({ stopReason: "stop" });
  });

  it("reads older bare-item rollouts", () => {
    const text = [
      j({ id: "r", timestamp: "2025-05-01T00:00:00Z", instructions: "be nice" }),
      j({ record_type: "state" }),
      j({ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }),
      j({ type: "local_shell_call", call_id: "c", action: { type: "exec", command: ["ls"] } }),
      j({ type: "function_call_output", call_id: "c", output: '{"output":"a"}' }),
    ].join("\n");
    const r = readCodexSession(text);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(r.messages[2]).toMatchObject({ toolName: "shell" });
  });

  it("a compacted line replaces earlier history unless ignored", () => {
    const text = [
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "old" }] }),
      j({ timestamp: "2026-01-01T00:00:00Z", type: "compacted", payload: { message: "summary of old" } }),
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "new" }] }),
    ].join("\n");
    expect(readCodexSession(text).messages.map((m) => m.content)).toEqual([
      "summary of old",
      [{ type: "text", text: "new" }],
    ]);
    const full = readCodexSession(text, { compaction: "ignore" });
    expect(full.messages).toHaveLength(2);
    expect(full.warnings.join(" ")).toMatch(/compaction/);
  });

  it("reports invalid, truncated and incomplete lines without throwing", () => {
    const text = [
      item({ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }),
      item({ type: "function_call", name: "x" }),
      "garbage",
      item({ type: "function_call_output", call_id: "zz", output: "partial output that gets cut" }).slice(0, 70),
    ].join("\n");
    const r = readCodexSession(text);
    expect(r.messages).toHaveLength(1);
    expect(r.skipped.map((s) => s.line)).toEqual([2, 3, 4]);
  });
});
