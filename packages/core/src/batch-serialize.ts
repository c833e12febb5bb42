/**
 * The text the summarizer model reads for one batch (CAP-CAPTURE-10): what the assistant said, then
 * one labelled block per tool call. The `[[N:tool]]` labels are what the model copies into its bullets
 * and what `rewriteInlineRefs` later turns into `tN` handles, so N must stay the 1-based position in
 * the post-dedup call list. Long results are cut so one huge output cannot crowd the others out.
 */
import type { CapturedBatch, CapturedToolCall } from "./capture-types.ts";

export const SERIALIZED_RESULT_MAX_CHARS = 2000;

export function serializeResultText(text: string, max = SERIALIZED_RESULT_MAX_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)} ...[${text.length - max} chars truncated]`;
}

export function serializeToolCall(call: CapturedToolCall, position: number): string {
  const args = JSON.stringify(call.args ?? {}, null, 2);
  return `[[${position}:${call.toolName}]] Tool: ${call.toolName}(${args})\n`
    + `Result (${call.isError ? "ERROR" : "OK"}): ${serializeResultText(call.resultText)}`;
}

export function serializeBatch(batch: Pick<CapturedBatch, "assistantText" | "toolCalls">): string {
  const parts: string[] = [];
  const said = batch.assistantText.trim();
  if (said) parts.push(`Assistant said: ${said}\n`);
  parts.push(batch.toolCalls.map((c, i) => serializeToolCall(c, i + 1)).join("\n---\n"));
  return parts.join("\n");
}
