/**
 * The summary of a borrowed plan (tenant-scope dedup, see plan-flush.ts): no model is asked, since
 * another session already condensed the same content, yet this session's model gets a summary it can
 * read, naming each call's own tN here and how to get the full output. Pure and deterministic, so a
 * retried flush writes the same text.
 */
import type { CapturedToolCall } from "../capture-types.ts";
import { QUERY_TOOL_NAME } from "../texts.ts";

const FIRST_LINE_MAX = 120;

function firstLine(text: string): string {
  const line = text.trimStart().split("\n", 1)[0] ?? "";
  return line.length > FIRST_LINE_MAX ? `${line.slice(0, FIRST_LINE_MAX)}…` : line;
}

function argsText(args: Record<string, unknown>): string {
  try {
    const s = JSON.stringify(args ?? {});
    return s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return "{}";
  }
}

/** One bullet per call. The other session is not named: the model cannot reach it, and need not. */
export function borrowedSummaryText(calls: readonly CapturedToolCall[], refs: readonly string[]): string {
  const bullets = calls.map((c, i) => {
    const ref = refs[i]!;
    const status = c.isError ? "failed" : "succeeded";
    return `- \`${ref}\` ${c.toolName} ${argsText(c.args)} ${status}; its output is identical to one already condensed in another session of this workspace and starts with "${firstLine(c.resultText)}". Call ${QUERY_TOOL_NAME} with \`${ref}\` for the full output.`;
  });
  return bullets.join("\n");
}
