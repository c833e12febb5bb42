/**
 * Reading recovery pages back out of what the model received: the page text of a
 * context_tree_query answer block (what follows the block's header, minus the one closing line that
 * names the next page or says it was the last), and the offset that line names. Used by the paging
 * end-to-end test to rebuild an original from the pages the model fetched.
 */
import { textOf, type ChatBody, type ChatMessage, type RecordedRequest } from "@condense/test-support/fake-llm";

const NEXT_PAGE =
  /\n\[Output truncated: characters \d+-\d+ of \d+ shown\. Next page: call context_tree_query with (\{[^\n]*\})\]$/;
const LAST_PAGE = /\n\[End of output: characters \d+-\d+ of \d+ shown; this is the last page\.\]$/;

export interface AnswerPage {
  page: string;
  next: { toolCallIds: string[]; offset: number } | null;
}

/** One single-hit answer block -> its page and the next call it names. */
export function answerPage(text: string): AnswerPage {
  const head =
    /^## toolRef: [^\n]*\n(?:Occurrence: [^\n]*\n)?Tool: [^\n]*\nArgs: [\s\S]*?\nStatus: (?:OK|ERROR)\nTurn: -?\d+\n\n/.exec(
      text,
    );
  if (!head) throw new Error(`not a query answer block: ${text.slice(0, 200)}`);
  const rest = text.slice(head[0].length);
  const cut = NEXT_PAGE.exec(rest);
  if (cut) return { page: rest.slice(0, cut.index), next: JSON.parse(cut[1]!) as AnswerPage["next"] };
  const last = LAST_PAGE.exec(rest);
  return { page: last ? rest.slice(0, last.index) : rest, next: null };
}

/**
 * The answer to the model's latest call if that was context_tree_query, with the call's args. A
 * Condense summary delivered meanwhile may follow the answer (as a user message): it is skipped.
 */
export function lastQueryAnswer(body: ChatBody): { args: Record<string, unknown>; text: string } | null {
  let last: ChatMessage | undefined;
  for (let i = body.messages.length - 1; i >= 0 && !last; i--) {
    const m = body.messages[i]!;
    if (m.role === "assistant") return null;
    if (m.role === "tool") last = m;
  }
  if (!last) return null;
  const call = callFor(body.messages, last.tool_call_id ?? "");
  if (call?.function.name !== "context_tree_query") return null;
  return { args: JSON.parse(call.function.arguments) as Record<string, unknown>, text: textOf(last.content) };
}

function callFor(messages: ChatMessage[], id: string) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const c = messages[i]!.tool_calls?.find((x) => x.id === id);
    if (c) return c;
  }
  return undefined;
}

/**
 * Every context_tree_query answer the model received, in order, each taken from the first request
 * that carried it (later requests may carry it stubbed), keyed by position in the conversation.
 */
export function queryAnswers(
  requests: RecordedRequest[],
  scenario: string,
): { args: Record<string, unknown>; text: string }[] {
  const seen = new Map<number, { args: Record<string, unknown>; text: string }>();
  for (const r of requests) {
    if (r.kind !== "agent") continue;
    const msgs = r.body.messages;
    const start = msgs.findIndex((m) => m.role === "user" && textOf(m.content).startsWith(`SCENARIO ${scenario}`));
    if (start < 0) continue;
    const after = msgs.findIndex((m, i) => i > start && m.role === "user" && textOf(m.content).startsWith("SCENARIO "));
    const end = after < 0 ? msgs.length : after;
    for (let i = start; i < end; i++) {
      const m = msgs[i]!;
      if (m.role !== "tool" || seen.has(i)) continue;
      const call = callFor(msgs.slice(0, i), m.tool_call_id ?? "");
      if (call?.function.name !== "context_tree_query") continue;
      seen.set(i, { args: JSON.parse(call.function.arguments) as Record<string, unknown>, text: textOf(m.content) });
    }
  }
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/** The raw output the model first saw for a tool call matching `match` (before any stub). */
export function firstRawOutput(
  requests: RecordedRequest[],
  match: (name: string, args: Record<string, unknown>) => boolean,
): string | null {
  for (const r of requests) {
    const msgs = r.body.messages;
    for (let i = 0; i < msgs.length; i++) {
      const call = msgs[i]!.tool_calls?.find((c) =>
        match(c.function.name, JSON.parse(c.function.arguments) as Record<string, unknown>),
      );
      if (!call) continue;
      const result = msgs.slice(i + 1).find((m) => m.role === "tool" && m.tool_call_id === call.id);
      const text = result ? textOf(result.content) : "";
      if (text && !text.startsWith("[Condensed") && !text.startsWith("[Oversized")) return text;
    }
  }
  return null;
}
