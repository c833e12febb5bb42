/**
 * The text the summarizer model reads for one batch (CAP-CAPTURE-10): what the assistant said, then
 * one labelled block per tool call. The `[[N:tool]]` labels are what the model copies into its bullets
 * and what `rewriteInlineRefs` later turns into `tN` handles, so N must stay the 1-based position in
 * the post-dedup call list. Long results are cut to a head and a tail so one huge output cannot crowd
 * the others out.
 */
import type { CapturedBatch, CapturedToolCall } from "./capture-types.ts";

export const SERIALIZED_RESULT_MAX_CHARS = 2000;
/** Share of the limit kept from the end of a cut result: where exit codes, totals and the last error sit. */
export const SERIALIZED_RESULT_TAIL_SHARE = 0.25;

/**
 * A result within the limit as it is; a longer one as a bounded head and tail with the cut between
 * them, so the summarizer sees how an output starts and how it ends (a test run's summary line, a
 * build's exit code) whatever its size. Never splits a surrogate pair.
 */
export function serializeResultText(text: string, max = SERIALIZED_RESULT_MAX_CHARS): string {
  if (text.length <= max) return text;
  const tailLen = Math.floor(max * SERIALIZED_RESULT_TAIL_SHARE);
  let headEnd = max - tailLen;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  let tailStart = text.length - tailLen;
  if (isHighSurrogate(text.charCodeAt(tailStart - 1))) tailStart++;
  return `${text.slice(0, headEnd)} ...[${tailStart - headEnd} chars truncated]... ${text.slice(tailStart)}`;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

export function serializeToolCall(call: CapturedToolCall, position: number): string {
  const args = JSON.stringify(call.args ?? {}, null, 2);
  return (
    `[[${position}:${call.toolName}]] Tool: ${call.toolName}(${args})\n` +
    `Result (${call.isError ? "ERROR" : "OK"}): ${serializeResultText(call.resultText)}`
  );
}

export function serializeBatch(batch: Pick<CapturedBatch, "assistantText" | "toolCalls">): string {
  const parts: string[] = [];
  const said = batch.assistantText.trim();
  if (said) parts.push(`Assistant said: ${said}\n`);
  parts.push(batch.toolCalls.map((c, i) => serializeToolCall(c, i + 1)).join("\n---\n"));
  return parts.join("\n");
}
