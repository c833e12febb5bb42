import { describe, expect, it } from "vitest";
import { readSweAgentTrajectory } from "../../src/session-formats/swe-agent.ts";

const traj = (history: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ trajectory: [], history, info: {}, ...extra }, null, 2);

describe("SWE-agent reader", () => {
  it("function-calling history: tool_calls and tool observations map directly, system prompt dropped", () => {
    const r = readSweAgentTrajectory(
      traj([
        { role: "system", content: "SETTING" },
        { role: "user", content: "ISSUE: fix it" },
        {
          role: "assistant",
          content: "look",
          thought: "look",
          action: "ls -F",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls -F"}' } },
          ],
        },
        { role: "tool", content: "a b", tool_call_ids: ["call_1"] },
      ]),
    );
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(r.messages[1]).toMatchObject({
      content: [
        { type: "text", text: "look" },
        { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls -F" } },
      ],
    });
    expect(r.messages[2]).toMatchObject({
      toolCallId: "call_1",
      toolName: "bash",
      content: [{ type: "text", text: "a b" }],
    });
    expect(r.warnings.join(" ")).toMatch(/system prompt/);
  });

  it("classic history: the action becomes a tool call answered by the next user message", () => {
    const r = readSweAgentTrajectory(
      traj([
        { role: "user", content: [{ type: "text", text: "ISSUE" }] },
        { role: "assistant", content: "Open it.\n```\nopen a.py\n```", thought: "Open it.", action: "open a.py\n" },
        { role: "user", content: "[File: a.py (3 lines total)]" },
        { role: "assistant", content: "done", thought: "done", action: "" },
      ]),
    );
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(r.messages[1]).toMatchObject({
      stopReason: "toolUse",
      content: [
        { type: "text", text: "Open it." },
        { type: "toolCall", name: "open", arguments: { command: "open a.py\n" } },
      ],
    });
    expect(r.messages[2]).toMatchObject({
      toolName: "open",
      content: [{ type: "text", text: "[File: a.py (3 lines total)]" }],
    });
    expect((r.messages[2] as { toolCallId: string }).toolCallId).toBe(
      (r.messages[1] as { content: { id?: string }[] }).content[1]!.id,
    );
  });

  it("without history the trajectory steps are used", () => {
    const r = readSweAgentTrajectory(
      JSON.stringify({ trajectory: [{ response: "r", thought: "t", action: "ls", observation: "out" }] }),
    );
    expect(r.messages.map((m) => m.role)).toEqual(["assistant", "toolResult"]);
    expect(r.warnings.join(" ")).toMatch(/rebuilt from its steps/);
  });

  it("a truncated trajectory keeps the complete history messages and reports where it broke", () => {
    const full = JSON.stringify(
      {
        history: [
          { role: "user", content: "ISSUE" },
          { role: "assistant", content: "x", thought: "x", action: "ls" },
          { role: "user", content: "out" },
        ],
        trajectory: [{ action: "ls", observation: "out" }],
      },
      null,
      2,
    );
    const cut = full.slice(0, full.indexOf('"out"'));
    const r = readSweAgentTrajectory(cut);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0]!.reason).toMatch(/truncated or invalid JSON/);
    expect(r.skipped[0]!.line).toBeGreaterThan(1);
    expect(readSweAgentTrajectory("not json").messages).toEqual([]);
    expect(readSweAgentTrajectory("[1,2]").skipped[0]!.reason).toMatch(/not a JSON object/);
  });
});
