/**
 * The as-recorded comparison bills Condense on top of the host's compacted context: the host's
 * context after its compaction, then Condense's render of what came after it.
 */
import { SUMMARY_CUSTOM_TYPE, type AgentMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { recordedContext, recordedRender, type HostCompaction } from "../src/replay/recorded-baseline.ts";

const user = (ts: number, text = "go"): AgentMessage =>
  ({ role: "user", content: text, timestamp: ts }) as AgentMessage;
const call = (ts: number, id: string): AgentMessage =>
  ({
    role: "assistant",
    content: [{ type: "toolCall", id, name: "bash", arguments: {} }],
    timestamp: ts,
  }) as AgentMessage;
const result = (ts: number, id: string, text: string): AgentMessage =>
  ({
    role: "toolResult",
    toolCallId: id,
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: ts,
  }) as AgentMessage;
const summary = (id: string, ts: number): AgentMessage =>
  ({
    role: "custom",
    customType: SUMMARY_CUSTOM_TYPE,
    content: `summary of ${id}`,
    display: false,
    details: { toolCallRefs: [{ toolCallId: id }] },
    timestamp: ts,
  }) as AgentMessage;

describe("Condense on the recorded (host-compacted) context", () => {
  const raw = [user(1), call(2, "a"), result(3, "a", "A".repeat(400)), user(4), call(5, "b"), result(6, "b", "B")];
  const compaction: HostCompaction = { fullCount: 3, context: [user(0, "host summary of the first turn")] };
  const stubbedB = result(6, "b", "[stub]");

  it("before the first compaction, the render itself", () => {
    const rendered = [user(1), call(2, "a")];
    expect(recordedRender(raw.slice(0, 2), rendered, [compaction])).toBe(rendered);
  });

  it("after it: the host's context, then the render of what came after the compaction point", () => {
    // The render: the pre-compaction part condensed, a summary of it, then the later messages condensed.
    const rendered = [
      user(1),
      call(2, "a"),
      result(3, "a", "[stub]"),
      summary("a", 3.5),
      user(4),
      call(5, "b"),
      stubbedB,
      summary("b", 7),
    ];
    const out = recordedRender(raw, rendered, [compaction]);
    expect(out).toEqual([compaction.context[0], user(4), call(5, "b"), stubbedB, summary("b", 7)]);
    // The baseline it is compared with: the same host context, then the raw messages after it.
    expect(recordedContext(raw, [compaction])).toEqual([compaction.context[0], ...raw.slice(3)]);
  });
});
