/**
 * Builders for the render tests, in the spec's scenario notation: A(ts; ids) assistant with tool
 * calls, R(ts; id; text) tool result, U(ts) user, F(ts) text-only assistant; plus state builders.
 */
import { occKey } from "../../src/keys.ts";
import { SUMMARY_CUSTOM_TYPE, type AgentMessage } from "../../src/messages.ts";
import { DEFAULT_SETTINGS, normalizeSettings, type CondenseSettings } from "../../src/settings.ts";
import { buildState, type CondenseState } from "../../src/state.ts";
import {
  emptyStats,
  type ChainEntry,
  type DedupAlias,
  type SummaryEntry,
  type ToolCallRecord,
} from "../../src/state-types.ts";

export const toolOf = (id: string) => (id.lastIndexOf("_") > 0 ? id.slice(0, id.lastIndexOf("_")) : id);

export function A(
  ts: number,
  ...ids: (string | { id: string; name?: string; args?: Record<string, unknown> })[]
): AgentMessage {
  return {
    role: "assistant",
    timestamp: ts,
    stopReason: "toolUse",
    content: ids.map((c) => {
      const s = typeof c === "string" ? { id: c } : c;
      return {
        type: "toolCall",
        id: s.id,
        name: s.name ?? toolOf(s.id),
        arguments: s.args ?? { command: `run ${s.id}` },
      };
    }),
  };
}
export function R(
  ts: number | undefined,
  id: string,
  text = `output of ${id}`,
  o: { name?: string; isError?: boolean } = {},
): AgentMessage {
  const m: Record<string, unknown> = {
    role: "toolResult",
    toolCallId: id,
    toolName: o.name ?? toolOf(id),
    content: [{ type: "text", text }],
    isError: o.isError ?? false,
  };
  if (ts !== undefined) m.timestamp = ts;
  return m as unknown as AgentMessage;
}
export const U = (ts: number, text = "please continue"): AgentMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp: ts,
});
export function F(ts: number, text = "done", thinking?: string): AgentMessage {
  const content: unknown[] = thinking
    ? [
        { type: "thinking", thinking },
        { type: "text", text },
      ]
    : [{ type: "text", text }];
  return { role: "assistant", timestamp: ts, stopReason: "stop", content } as AgentMessage;
}
export const C = (ts: number, customType = "third-party", text = "note"): AgentMessage =>
  ({ role: "custom", customType, content: text, display: true, timestamp: ts }) as AgentMessage;
/** A per-batch summary message; refs are `id@ts` occurrence keys or bare legacy ids. */
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

export function rec(
  id: string,
  resultTimestamp: number | undefined,
  extra: Partial<ToolCallRecord> = {},
): ToolCallRecord {
  return {
    key: occKey(id, resultTimestamp),
    toolCallId: id,
    toolName: toolOf(id),
    args: {},
    resultText: `output of ${id}`,
    isError: false,
    turnIndex: 0,
    timestamp: resultTimestamp ?? 0,
    ...(resultTimestamp !== undefined ? { resultTimestamp } : {}),
    ...extra,
  };
}
export function summary(id: string, coverage: string[], text = `summary ${id}`): SummaryEntry {
  return { id, text, refs: [], coverage, toolNames: [], turnIndex: 0, timestamp: 0 };
}
export function chain(
  blockId: string,
  start: number,
  final: number | null,
  extra: Partial<ChainEntry> = {},
): ChainEntry {
  return {
    blockId,
    startUserTimestamp: start,
    finalAssistantTimestamp: final,
    droppedToolCallIds: [],
    toolRefs: [],
    compressedAt: 900_000,
    ...extra,
  };
}
export function state(
  p: { records?: ToolCallRecord[]; summaries?: SummaryEntry[]; aliases?: DedupAlias[]; chains?: ChainEntry[] } = {},
): CondenseState {
  return buildState(1, p.records ?? [], p.summaries ?? [], p.aliases ?? [], p.chains ?? [], null, emptyStats());
}
export function settings(over: Record<string, unknown> = {}): CondenseSettings {
  return normalizeSettings({ ...DEFAULT_SETTINGS, ...over });
}
export const textOf = (m: unknown): string => {
  const c = (m as { content: unknown }).content;
  if (typeof c === "string") return c;
  return (c as { type: string; text?: string }[])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n");
};
