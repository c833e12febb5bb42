/**
 * Which messages the render path can read. Anything else is "malformed": it is passed through
 * untouched (never stubbed, dropped or swept) and reported once, so bad input never throws and never
 * silently disappears. Shapes follow CAP-MODEL-1/2.
 */
import { isObject, type AssistantMessage, type ToolResultMessage } from "../messages.ts";
import { isCompressedChainText } from "../texts.ts";

export type MalformedReason = "not-an-object" | "missing-role" | "bad-content" | "missing-tool-call-id";

export function malformedReason(m: unknown): MalformedReason | null {
  if (!isObject(m)) return "not-an-object";
  const role = m.role;
  if (typeof role !== "string") return "missing-role";
  switch (role) {
    case "assistant":
      return Array.isArray(m.content) ? null : "bad-content";
    case "toolResult":
      if (typeof m.toolCallId !== "string") return "missing-tool-call-id";
      return Array.isArray(m.content) ? null : "bad-content";
    case "user":
    case "custom":
      return typeof m.content === "string" || Array.isArray(m.content) ? null : "bad-content";
    default:
      // branchSummary, compactionSummary, bashExecution and future roles: carried as they are.
      return null;
  }
}

export function isReadableToolResult(m: unknown): m is ToolResultMessage {
  return isObject(m) && m.role === "toolResult" && typeof m.toolCallId === "string" && Array.isArray(m.content);
}

export function isReadableAssistant(m: unknown): m is AssistantMessage {
  return isObject(m) && m.role === "assistant" && Array.isArray(m.content);
}

/** Text of the first text part of a user/custom message (the whole string for string content). */
export function firstTextPart(m: Record<string, unknown>): string | undefined {
  const c = m.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return undefined;
  for (const p of c) if (isObject(p) && p.type === "text" && typeof p.text === "string") return p.text;
  return undefined;
}

/** A synthetic `<compressed-chain>` user message Condense inserted (CAP-RENDER-14, CAP-CHAIN-1). */
export function isChainSynthetic(m: unknown): boolean {
  if (!isObject(m) || m.role !== "user") return false;
  const t = firstTextPart(m);
  return t !== undefined && isCompressedChainText(t);
}
