/**
 * The pairing rule shared by error purge and the orphan sweep: a tool result belongs to the nearest
 * preceding assistant when only tool results lie between them, that assistant called its id, and no
 * earlier result in the same turn already answered that id (the first answer consumes the call).
 */
import { isObject, type AssistantMessage } from "../messages.ts";

export function callsId(a: AssistantMessage, id: string): boolean {
  for (const b of a.content) if (isObject(b) && b.type === "toolCall" && b.id === id) return true;
  return false;
}

/** Whether a result for `id` lies strictly between `from` and `to` (callers pass a turn's span). */
export function answeredEarlier(messages: readonly unknown[], from: number, to: number, id: string): boolean {
  for (let j = from + 1; j < to; j++) {
    const m = messages[j];
    if (isObject(m) && m.role === "toolResult" && m.toolCallId === id) return true;
  }
  return false;
}
