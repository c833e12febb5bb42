/**
 * Reader for Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl). Current
 * rollouts wrap OpenAI Responses API items as `{timestamp, type:"response_item", payload}` next to
 * `session_meta`, `turn_context` and `event_msg` lines (UI events, not context); older rollouts
 * write the items bare after a `{id, timestamp, instructions}` header. Items of one model response
 * (reasoning, assistant message, function calls) are merged into one assistant message; each
 * `function_call_output` becomes a `toolResult` named after its call. Developer and user messages
 * both reach the model as user text.
 */
import {
  isObject,
  type AgentMessage,
  type AssistantBlock,
  type AssistantMessage,
  type ImagePart,
  type TextPart,
} from "../messages.ts";
import type { SkippedLine } from "../session-reader.ts";
import { argumentsObject, parseJsonLines, timestampMs, type JsonLine } from "./json-lines.ts";
import type { FormatReadOptions, FormatReadResult } from "./types.ts";

const ITEM_TYPES = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "web_search_call",
]);

export function readCodexSession(text: string, options: FormatReadOptions = {}): FormatReadResult {
  const skipped: SkippedLine[] = [];
  const warnings: string[] = [];
  let lines: JsonLine[] = [];
  try {
    lines = parseJsonLines(text, skipped);
  } catch (err) {
    skipped.push({ line: 0, reason: `reader failure: ${String(err)}` });
  }

  // A `compacted` line replaces the history before it with its summary (when applied).
  let start = 0;
  let compactions = 0;
  let summary: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const v = lines[i]!.value;
    if (v.type === "compacted") {
      compactions++;
      if ((options.compaction ?? "apply") === "apply") {
        start = i + 1;
        const p = isObject(v.payload) ? v.payload : {};
        summary = typeof p.message === "string" ? p.message : undefined;
      }
    }
  }

  const messages: AgentMessage[] = [];
  if (summary) messages.push({ role: "user", content: summary });
  const toolNames = new Map<string, string>();
  let unsupported = 0;

  const openAssistant = (ts: number | undefined): AssistantMessage => {
    const last = messages[messages.length - 1];
    if (last && last.role === "assistant") return last as AssistantMessage;
    const m: AssistantMessage = { role: "assistant", content: [], timestamp: ts };
    messages.push(m);
    return m;
  };
  const addCall = (ts: number | undefined, id: string, name: string, args: Record<string, unknown>) => {
    toolNames.set(id, name);
    const a = openAssistant(ts);
    a.content.push({ type: "toolCall", id, name, arguments: args });
    a.stopReason = "toolUse";
  };

  for (let i = start; i < lines.length; i++) {
    const { line, value: v } = lines[i]!;
    const item =
      v.type === "response_item" && isObject(v.payload) ? v.payload : ITEM_TYPES.has(String(v.type)) ? v : undefined;
    if (!item) continue;
    const ts = timestampMs(v.timestamp);
    switch (item.type) {
      case "message": {
        const parts = messageParts(item.content);
        if (item.role === "assistant") {
          const a = openAssistant(ts);
          for (const p of parts) if (p.type === "text") a.content.push(p);
          if (!a.stopReason) a.stopReason = "stop";
        } else if (item.role === "user" || item.role === "developer") {
          if (parts.length > 0) messages.push({ role: "user", content: parts, timestamp: ts });
        } else if (item.role !== "system") {
          unsupported++;
        }
        break;
      }
      case "reasoning": {
        const text = reasoningText(item);
        if (text) openAssistant(ts).content.push({ type: "thinking", thinking: text } as AssistantBlock);
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        const id = callId(item);
        if (!id || typeof item.name !== "string") {
          skipped.push({ line, reason: `${item.type} without call_id or name` });
          break;
        }
        addCall(ts, id, item.name, argumentsObject(item.type === "function_call" ? item.arguments : item.input));
        break;
      }
      case "local_shell_call": {
        const id = callId(item);
        if (!id) {
          skipped.push({ line, reason: "local_shell_call without call_id" });
          break;
        }
        addCall(ts, id, "shell", isObject(item.action) ? item.action : {});
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        const id = callId(item);
        if (!id) {
          skipped.push({ line, reason: `${item.type} without call_id` });
          break;
        }
        const out = outputOf(item.output);
        messages.push({
          role: "toolResult",
          toolCallId: id,
          toolName: toolNames.get(id) ?? "unknown",
          content: out.parts,
          isError: out.isError,
          timestamp: ts,
        });
        break;
      }
      default:
        unsupported++;
    }
  }
  if (compactions > 0 && options.compaction === "ignore")
    warnings.push(`${compactions} compaction marker(s) ignored: the full history is replayed`);
  if (unsupported > 0) warnings.push(`${unsupported} response item(s) of unsupported types were left out`);
  skipped.sort((a, b) => a.line - b.line);
  return { format: "codex-cli", messages, skipped, warnings };
}

function callId(item: Record<string, unknown>): string | undefined {
  const id = item.call_id ?? item.id;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

function messageParts(c: unknown): (TextPart | ImagePart)[] {
  if (typeof c === "string") return c.length > 0 ? [{ type: "text", text: c }] : [];
  if (!Array.isArray(c)) return [];
  const out: (TextPart | ImagePart)[] = [];
  for (const b of c) {
    if (!isObject(b)) continue;
    if ((b.type === "input_text" || b.type === "output_text" || b.type === "text") && typeof b.text === "string")
      out.push({ type: "text", text: b.text });
    else if (b.type === "input_image")
      out.push({ type: "image", ...(typeof b.image_url === "string" ? { data: b.image_url } : {}) });
  }
  return out;
}

/** Readable reasoning only (the summary texts); encrypted reasoning carries nothing to condense. */
function reasoningText(item: Record<string, unknown>): string {
  const texts: string[] = [];
  for (const src of [item.summary, item.content]) {
    if (!Array.isArray(src)) continue;
    for (const s of src) if (isObject(s) && typeof s.text === "string" && s.text.length > 0) texts.push(s.text);
  }
  return texts.join("\n");
}

/** function_call_output.output: usually a string; some versions write `{content, success}`. */
function outputOf(o: unknown): { parts: (TextPart | ImagePart)[]; isError: boolean } {
  if (typeof o === "string") return { parts: [{ type: "text", text: o }], isError: false };
  if (isObject(o)) {
    const parts =
      typeof o.content === "string" ? [{ type: "text" as const, text: o.content }] : messageParts(o.content);
    return { parts, isError: o.success === false };
  }
  if (Array.isArray(o)) return { parts: messageParts(o), isError: false };
  return { parts: [], isError: false };
}
