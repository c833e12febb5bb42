/**
 * The message model (CAP-MODEL): the shapes the host agent hands to the `context` hook.
 * Core reads these and never mutates them. Unknown roles and malformed messages are carried
 * through untouched; every reader here must tolerate `unknown` fields.
 */

export interface TextPart {
  type: "text";
  text: string;
}
export interface ImagePart {
  type: "image";
  data?: string;
  mimeType?: string;
}
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  redacted?: boolean;
}
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments?: Record<string, unknown>;
  /** Aliases some providers/hosts use for `arguments` (CAP-MODEL-1). */
  input?: Record<string, unknown>;
  args?: Record<string, unknown>;
}
export type AssistantBlock = TextPart | ThinkingBlock | ToolCallBlock | { type: string; [k: string]: unknown };

export interface UserMessage {
  role: "user";
  content: string | (TextPart | ImagePart)[];
  timestamp?: number;
}
export interface AssistantMessage {
  role: "assistant";
  content: AssistantBlock[];
  stopReason?: string;
  timestamp?: number;
  usage?: unknown;
  [k: string]: unknown;
}
export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextPart | ImagePart)[];
  isError?: boolean;
  timestamp?: number;
  details?: unknown;
}
export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string | (TextPart | ImagePart)[];
  display?: boolean;
  details?: unknown;
  timestamp?: number;
}
/** Host roles that are not LLM roles but reach the provider as user text, and any future role. */
export interface OtherMessage {
  role: string;
  timestamp?: number;
  [k: string]: unknown;
}

export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | CustomMessage | OtherMessage;

/** customType of the per-batch summary message a flush appends to the branch (CAP-FLUSH-14). */
export const SUMMARY_CUSTOM_TYPE = "condense-summary";
/** Also recognised when reading sessions that pi-condense itself wrote. */
export const LEGACY_SUMMARY_CUSTOM_TYPE = "context-prune-summary";

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export function isToolResult(m: unknown): m is ToolResultMessage {
  return isObject(m) && m.role === "toolResult" && typeof m.toolCallId === "string";
}

export function isAssistant(m: unknown): m is AssistantMessage {
  return isObject(m) && m.role === "assistant" && Array.isArray(m.content);
}

export function isUser(m: unknown): m is UserMessage {
  return isObject(m) && m.role === "user";
}

export function isSummaryMessage(m: unknown): m is CustomMessage {
  return (
    isObject(m) &&
    m.role === "custom" &&
    (m.customType === SUMMARY_CUSTOM_TYPE || m.customType === LEGACY_SUMMARY_CUSTOM_TYPE)
  );
}

export function toolCallsOf(m: AssistantMessage): ToolCallBlock[] {
  const out: ToolCallBlock[] = [];
  for (const b of m.content) {
    if (isObject(b) && b.type === "toolCall" && typeof b.id === "string") out.push(b as unknown as ToolCallBlock);
  }
  return out;
}

/** Arguments of a tool-call block; capture reads `input ?? args ?? arguments ?? {}` (CAP-MODEL-1). */
export function toolCallArgs(b: ToolCallBlock): Record<string, unknown> {
  const a = b.input ?? b.args ?? b.arguments;
  return isObject(a) ? a : {};
}

/** "Result text": the text parts joined with "\n", images ignored (CAP-MODEL-1). */
export function resultText(m: { content?: unknown }): string {
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  let out = "";
  let first = true;
  for (const p of c) {
    if (isObject(p) && p.type === "text" && typeof p.text === "string") {
      out = first ? p.text : `${out}\n${p.text}`;
      first = false;
    }
  }
  return out;
}

/** Text of a user/custom message's content (string or text parts). */
export function contentText(content: unknown): string {
  return resultText({ content });
}

export function hasToolCall(m: AssistantMessage): boolean {
  for (const b of m.content) if (isObject(b) && b.type === "toolCall") return true;
  return false;
}

export function numericTimestamp(m: unknown): number | undefined {
  return isObject(m) && typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
}
