/**
 * Compact message builders for the acceptance scenarios, in the spec's notation:
 * A(ts; ids) assistant with tool calls, R(ts; id; text) tool result, U(ts) user, F(ts) text-only assistant.
 */
import type { AgentMessage } from "../../src/messages.ts";
import type { ToolCallRecord } from "../../src/state-types.ts";
import { occKey } from "../../src/keys.ts";

export type CallSpec = string | { id: string; name?: string; args?: Record<string, unknown> };

export function A(ts: number, ...calls: CallSpec[]): AgentMessage {
  return {
    role: "assistant",
    timestamp: ts,
    stopReason: "toolUse",
    content: calls.map((c) => {
      const spec = typeof c === "string" ? { id: c } : c;
      return {
        type: "toolCall",
        id: spec.id,
        name: spec.name ?? toolNameOf(spec.id),
        arguments: spec.args ?? { command: `run ${spec.id}` },
      };
    }),
  };
}

export function R(
  ts: number,
  id: string,
  text = `output of ${id}`,
  opts: { name?: string; isError?: boolean } = {},
): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: opts.name ?? toolNameOf(id),
    content: [{ type: "text", text }],
    isError: opts.isError ?? false,
    timestamp: ts,
  };
}

export function U(ts: number, text = "do the thing"): AgentMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: ts };
}

export function F(ts: number, text = "done", thinking?: string): AgentMessage {
  const content: unknown[] = [];
  if (thinking) content.push({ type: "thinking", thinking });
  content.push({ type: "text", text });
  return { role: "assistant", timestamp: ts, stopReason: "stop", content } as AgentMessage;
}

/** `bash_23` -> `bash`; anything without an underscore names itself. */
export function toolNameOf(id: string): string {
  const i = id.lastIndexOf("_");
  return i > 0 ? id.slice(0, i) : id;
}

export function record(
  id: string,
  resultTimestamp: number | undefined,
  extra: Partial<ToolCallRecord> = {},
): ToolCallRecord {
  return {
    key: occKey(id, resultTimestamp),
    toolCallId: id,
    toolName: toolNameOf(id),
    args: {},
    resultText: `output of ${id}`,
    isError: false,
    turnIndex: 0,
    timestamp: resultTimestamp ?? 0,
    ...(resultTimestamp !== undefined ? { resultTimestamp } : {}),
    ...extra,
  };
}
