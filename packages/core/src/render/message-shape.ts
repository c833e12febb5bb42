/**
 * Which messages the render path can read. Anything else is "malformed": it is passed through
 * untouched (never stubbed or dropped) and reported once, so bad input never throws and never
 * silently disappears; the one exception is a tool result no call opened, which the orphan sweep
 * removes whatever its shape, because pairing outranks leaving input alone. Shapes follow
 * CAP-MODEL-1/2.
 *
 * A render reads each message's role, shape and timestamp once (read-messages.ts) and hands the phases
 * that reading with the array (`Rendering`), so no phase re-reads every message to learn what it is.
 */
import { isObject, isSummaryMessage, type AssistantMessage, type ToolResultMessage } from "../messages.ts";
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

/** What a message is to the render (`Kind`), plus `UNREADABLE` when its content or id cannot be read. */
export const Kind = {
  /** branchSummary, compactionSummary, bashExecution and future roles: carried as they are */
  OTHER: 0,
  USER: 1,
  ASSISTANT: 2,
  RESULT: 3,
  /** a per-batch summary (custom message of Condense's or pi-condense's summary type) */
  SUMMARY: 4,
  /** any other custom message */
  CUSTOM: 5,
  /** not an object, or no role */
  NOT_A_MESSAGE: 6,
} as const;
export const UNREADABLE = 8;

/**
 * The array a phase works on, with what the render read of each element (same length, same order):
 * its kind, and its numeric timestamp (NaN without one). A phase that replaces, drops or inserts
 * elements carries both along, so no phase reads a message object only to learn these.
 */
export interface Rendering {
  readonly messages: readonly unknown[];
  readonly kinds: Uint8Array;
  readonly timestamps: Float64Array;
}

/** `Kind | UNREADABLE?` of one element; the same readability rules as `malformedReason`. */
export function kindOf(m: unknown): number {
  if (!isObject(m)) return Kind.NOT_A_MESSAGE | UNREADABLE;
  const c = m.content;
  switch (m.role) {
    case "assistant":
      return Array.isArray(c) ? Kind.ASSISTANT : Kind.ASSISTANT | UNREADABLE;
    case "toolResult":
      return typeof m.toolCallId === "string" && Array.isArray(c) ? Kind.RESULT : Kind.RESULT | UNREADABLE;
    case "user":
      return typeof c === "string" || Array.isArray(c) ? Kind.USER : Kind.USER | UNREADABLE;
    case "custom": {
      const kind = isSummaryMessage(m) ? Kind.SUMMARY : Kind.CUSTOM;
      return typeof c === "string" || Array.isArray(c) ? kind : kind | UNREADABLE;
    }
    default:
      return typeof m.role === "string" ? Kind.OTHER : Kind.NOT_A_MESSAGE | UNREADABLE;
  }
}

/** The numeric timestamp of an element, NaN without one. */
export function timestampOf(m: unknown): number {
  if (!isObject(m)) return Number.NaN;
  const ts = m.timestamp;
  return typeof ts === "number" ? ts : Number.NaN;
}
