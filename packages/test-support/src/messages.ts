/**
 * pi's agent messages for tests, in the spec's scenario notation: U(ts) a user prompt, A(ts; calls) an
 * assistant turn with tool calls, R(ts; id; text) a tool result, F(ts) the final text-only reply,
 * C(ts) a third-party custom message, S(ts; refs) a Condense summary message; and `turn`, the
 * `{ message, toolResults }` pair the client's `onTurnEnd` receives.
 *
 * A tool's name defaults to its call id up to the last underscore (`bash_23` is a `bash` call, `a`
 * names itself), so a scenario written as ids reads like the spec's tables.
 */
import { SUMMARY_CUSTOM_TYPE, type AgentMessage } from "@condense/core";

/** A tool call: its id alone, or the id with the tool's name and arguments. */
export type CallSpec = string | { id: string; name?: string; args?: Record<string, unknown> };

/** `bash_23` -> `bash`; anything without an underscore names itself. */
export function toolNameOf(id: string): string {
  const i = id.lastIndexOf("_");
  return i > 0 ? id.slice(0, i) : id;
}

const specOf = (c: CallSpec) => (typeof c === "string" ? { id: c } : c);

/** A user prompt; `plain` gives pi's string form of the content instead of one text block. */
export function U(ts: number, text = "do the thing", opts: { plain?: boolean } = {}): AgentMessage {
  return { role: "user", content: opts.plain ? text : [{ type: "text", text }], timestamp: ts };
}

/** An assistant turn that calls tools (arguments default to `{ command: "run <id>" }`). */
export function A(ts: number, ...calls: CallSpec[]): AgentMessage {
  return {
    role: "assistant",
    timestamp: ts,
    stopReason: "toolUse",
    content: calls.map((c) => {
      const s = specOf(c);
      return {
        type: "toolCall",
        id: s.id,
        name: s.name ?? toolNameOf(s.id),
        arguments: s.args ?? { command: `run ${s.id}` },
      };
    }),
  };
}

/** The result of call `id`; `ts` undefined makes a legacy result without a timestamp. */
export function R(
  ts: number | undefined,
  id: string,
  text = `output of ${id}`,
  opts: { name?: string; isError?: boolean } = {},
): AgentMessage {
  const m: Record<string, unknown> = {
    role: "toolResult",
    toolCallId: id,
    toolName: opts.name ?? toolNameOf(id),
    content: [{ type: "text", text }],
    isError: opts.isError ?? false,
  };
  if (ts !== undefined) m.timestamp = ts;
  return m as unknown as AgentMessage;
}

/** The assistant's final reply, text only (with a thinking block before it when given). */
export function F(ts: number, text = "done", thinking?: string): AgentMessage {
  const content: unknown[] = thinking ? [{ type: "thinking", thinking }] : [];
  content.push({ type: "text", text });
  return { role: "assistant", timestamp: ts, stopReason: "stop", content } as AgentMessage;
}

/** A custom message another extension put in the history. */
export const C = (ts: number, customType = "third-party", text = "note"): AgentMessage =>
  ({ role: "custom", customType, content: text, display: true, timestamp: ts }) as AgentMessage;

/**
 * A Condense summary message covering `refs`: `id@ts` occurrence keys (given short ids t1, t2, …) or
 * bare ids (their own short id); `legacy` writes the old `toolCallIds` form.
 */
export function S(ts: number, refs: string[], text = "summary", legacy = false): AgentMessage {
  const details = legacy
    ? { toolCallIds: refs }
    : {
        toolCallRefs: refs.map((k, i) => {
          const at = k.lastIndexOf("@");
          return at > 0
            ? { shortId: `t${i + 1}`, toolCallId: k.slice(0, at), resultTimestamp: Number(k.slice(at + 1)) }
            : { shortId: k, toolCallId: k };
        }),
      };
  return {
    role: "custom",
    customType: SUMMARY_CUSTOM_TYPE,
    content: text,
    display: false,
    details,
    timestamp: ts,
  } as AgentMessage;
}

/** What the client's `onTurnEnd` receives for one call: the assistant turn and its result `resultAfter` ms later. */
export function turn(
  ts: number,
  call: CallSpec,
  text: string,
  resultAfter = 1,
): { message: AgentMessage; toolResults: AgentMessage[] } {
  const s = specOf(call);
  return { message: A(ts, s), toolResults: [R(ts + resultAfter, s.id, text, { name: s.name ?? toolNameOf(s.id) })] };
}
