/**
 * Reader for Claude Code session JSONL (~/.claude/projects/<dir>/<session>.jsonl). Each line is an
 * entry; `user` / `assistant` entries carry an Anthropic Messages API `message`. Claude Code writes
 * every content block of one assistant response as its own entry (same `message.id`), so consecutive
 * entries of one response are merged back into one assistant message. `tool_result` blocks inside a
 * user entry become core `toolResult` messages; the tool name comes from the matching `tool_use`.
 * Conversation order is file order (Claude Code appends as it goes); sidechain (sub-agent) entries
 * and bookkeeping entries (queue-operation, attachment, file-history-snapshot, ...) are not context.
 */
import {
  isObject,
  type AgentMessage,
  type AssistantBlock,
  type AssistantMessage,
  type ImagePart,
  type TextPart,
  type ToolResultMessage,
} from "../messages.ts";
import type { SkippedLine } from "../session-reader.ts";
import { argumentsObject, parseJsonLines, timestampMs, type JsonLine } from "./json-lines.ts";
import type { FormatReadOptions, FormatReadResult } from "./types.ts";

const STOP_REASONS: Record<string, string> = {
  tool_use: "toolUse",
  end_turn: "stop",
  max_tokens: "length",
  stop_sequence: "stop",
};

export function readClaudeCodeSession(text: string, options: FormatReadOptions = {}): FormatReadResult {
  const skipped: SkippedLine[] = [];
  const warnings: string[] = [];
  let lines: JsonLine[] = [];
  try {
    lines = parseJsonLines(text, skipped);
  } catch (err) {
    skipped.push({ line: 0, reason: `reader failure: ${String(err)}` });
  }

  // With compaction applied, the context starts at the last compact boundary.
  let start = 0;
  if ((options.compaction ?? "apply") === "apply") {
    for (let i = lines.length - 1; i >= 0; i--) {
      const v = lines[i]!.value;
      if (v.type === "system" && v.subtype === "compact_boundary") {
        start = i + 1;
        break;
      }
    }
  }

  const messages: AgentMessage[] = [];
  const toolNames = new Map<string, string>();
  let sidechain = 0;
  let droppedSummaries = 0;
  let droppedBlocks = 0;
  /**
   * Assistant messages by API message id. Claude Code writes each block of a response as its own
   * entry and, with parallel tool calls, may log a result before the response's next tool_use block;
   * every block of one id joins the first message of that id, so each call precedes its result.
   */
  const byMessageId = new Map<string, AssistantMessage>();

  for (let i = start; i < lines.length; i++) {
    const { line, value: v } = lines[i]!;
    if (v.type !== "user" && v.type !== "assistant") continue;
    if (v.isSidechain === true) {
      sidechain++;
      continue;
    }
    const m = v.message;
    if (!isObject(m)) {
      skipped.push({ line, reason: `${String(v.type)} entry without a message` });
      continue;
    }
    const ts = timestampMs(v.timestamp);

    if (v.type === "assistant") {
      const blocks: AssistantBlock[] = [];
      for (const b of contentBlocks(m.content)) {
        const converted = assistantBlock(b);
        if (converted) {
          blocks.push(converted);
          if (converted.type === "toolCall") toolNames.set(String(converted.id), String(converted.name));
        } else droppedBlocks++;
      }
      const id = typeof m.id === "string" ? m.id : undefined;
      const earlier = id !== undefined ? byMessageId.get(id) : undefined;
      if (earlier) {
        earlier.content.push(...blocks);
        const stop = stopReason(m.stop_reason);
        if (stop) earlier.stopReason = stop;
        continue;
      }
      const msg: AssistantMessage = { role: "assistant", content: blocks, timestamp: ts };
      const stop = stopReason(m.stop_reason);
      if (stop) msg.stopReason = stop;
      if (typeof m.model === "string") msg.model = m.model;
      if (m.usage !== undefined) msg.usage = m.usage;
      messages.push(msg);
      if (id !== undefined) byMessageId.set(id, msg);
      continue;
    }

    if (v.isCompactSummary === true && options.compaction === "ignore") {
      droppedSummaries++;
      continue;
    }
    if (typeof m.content === "string") {
      messages.push({ role: "user", content: m.content, timestamp: ts });
      continue;
    }
    if (!Array.isArray(m.content)) {
      skipped.push({ line, reason: "user message without content" });
      continue;
    }
    const rest: (TextPart | ImagePart)[] = [];
    for (const b of m.content) {
      if (!isObject(b)) {
        droppedBlocks++;
        continue;
      }
      if (b.type === "tool_result") {
        const id = typeof b.tool_use_id === "string" ? b.tool_use_id : "";
        if (!id) {
          skipped.push({ line, reason: "tool_result without tool_use_id" });
          continue;
        }
        messages.push({
          role: "toolResult",
          toolCallId: id,
          toolName: toolNames.get(id) ?? "unknown",
          content: resultParts(b.content),
          isError: b.is_error === true,
          timestamp: ts,
        });
        continue;
      }
      const part = userPart(b);
      if (part) rest.push(part);
      else droppedBlocks++;
    }
    if (rest.length > 0) messages.push({ role: "user", content: rest, timestamp: ts });
  }

  if (sidechain > 0)
    warnings.push(`${sidechain} sidechain (sub-agent) entries are not part of the main context and were left out`);
  if (droppedSummaries > 0)
    warnings.push(`${droppedSummaries} compaction summary message(s) left out: the full history is replayed instead`);
  if (droppedBlocks > 0) warnings.push(`${droppedBlocks} content block(s) of unsupported types were left out`);
  // A result logged before its call's entry gets the name once the whole file is read.
  for (const m of messages) {
    if (m.role === "toolResult" && m.toolName === "unknown") {
      const r = m as ToolResultMessage;
      r.toolName = toolNames.get(r.toolCallId) ?? "unknown";
    }
  }
  skipped.sort((a, b) => a.line - b.line);
  return { format: "claude-code", messages, skipped, warnings };
}

function contentBlocks(c: unknown): Record<string, unknown>[] {
  if (typeof c === "string") return c.length > 0 ? [{ type: "text", text: c }] : [];
  return Array.isArray(c) ? c.filter(isObject) : [];
}

function stopReason(r: unknown): string | undefined {
  return typeof r === "string" ? (STOP_REASONS[r] ?? r) : undefined;
}

function assistantBlock(b: Record<string, unknown>): AssistantBlock | undefined {
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? { type: "text", text: b.text } : undefined;
    case "thinking":
      return {
        type: "thinking",
        thinking: typeof b.thinking === "string" ? b.thinking : "",
        ...(typeof b.signature === "string" ? { thinkingSignature: b.signature } : {}),
      };
    case "redacted_thinking":
      return { type: "thinking", thinking: "", redacted: true };
    case "tool_use":
    case "server_tool_use":
      if (typeof b.id !== "string" || typeof b.name !== "string") return undefined;
      return { type: "toolCall", id: b.id, name: b.name, arguments: argumentsObject(b.input) };
    default:
      return undefined;
  }
}

function imagePart(b: Record<string, unknown>): ImagePart {
  const src = isObject(b.source) ? b.source : {};
  return {
    type: "image",
    ...(typeof src.data === "string" ? { data: src.data } : {}),
    ...(typeof src.media_type === "string" ? { mimeType: src.media_type } : {}),
  };
}

function userPart(b: Record<string, unknown>): TextPart | ImagePart | undefined {
  if (b.type === "text" && typeof b.text === "string") return { type: "text", text: b.text };
  if (b.type === "image") return imagePart(b);
  return undefined;
}

/** tool_result content: a string, or blocks (text, image, and Claude Code's `tool_reference`). */
function resultParts(c: unknown): (TextPart | ImagePart)[] {
  if (typeof c === "string") return [{ type: "text", text: c }];
  if (!Array.isArray(c)) return [];
  const out: (TextPart | ImagePart)[] = [];
  for (const b of c) {
    if (!isObject(b)) continue;
    if (b.type === "text" && typeof b.text === "string") out.push({ type: "text", text: b.text });
    else if (b.type === "image") out.push(imagePart(b));
    else if (b.type === "tool_reference" && typeof b.tool_name === "string")
      out.push({ type: "text", text: `[tool reference: ${b.tool_name}]` });
  }
  return out;
}
