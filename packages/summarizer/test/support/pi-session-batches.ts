/**
 * Real pi sessions as the summarizer sees them: each assistant turn's tool calls paired with their
 * results (a CapturedBatch), plus what the assistant wrote over the next few turns (`laterText`, for
 * the guard's "identifiers referenced later" facts). File order, tolerant of unparseable lines.
 */
import { readFileSync } from "node:fs";
import type { CapturedBatch, CapturedToolCall } from "@condense/core";

export interface SessionBatch {
  batch: CapturedBatch;
  laterText: string;
  rawChars: number;
}

/** How many later assistant messages count as "later text". */
const LATER_WINDOW = 3;
/** The worker's default trivial-batch threshold: smaller batches are never summarized. */
export const MIN_BATCH_CHARS = 1000;

type Block = { type?: string; text?: string; id?: string; name?: string; arguments?: Record<string, unknown> };
type Msg = { role?: string; content?: unknown; toolCallId?: string; isError?: boolean; timestamp?: number };

const blocks = (m: Msg): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : []);
const textOf = (m: Msg): string =>
  typeof m.content === "string"
    ? m.content
    : blocks(m)
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? "")
        .join("\n");

export function piSessionBatches(file: string, minBatchChars = MIN_BATCH_CHARS): SessionBatch[] {
  const messages: Msg[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as { type?: string; message?: Msg };
      if (entry.type === "message" && entry.message) messages.push(entry.message);
    } catch {
      /* a few real lines carry invalid escapes; skip them as pi does */
    }
  }
  const assistants = messages.map((m, i) => (m.role === "assistant" ? i : -1)).filter((i) => i >= 0);
  const out: SessionBatch[] = [];
  assistants.forEach((ai, k) => {
    const assistant = messages[ai]!;
    const calls = blocks(assistant).filter((b) => b.type === "toolCall" && b.id);
    if (calls.length === 0) return;
    const end = assistants[k + 1] ?? messages.length;
    const results = new Map<string, Msg>();
    for (let i = ai + 1; i < end; i++) {
      const m = messages[i]!;
      if (m.role === "toolResult" && m.toolCallId && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
    }
    const toolCalls: CapturedToolCall[] = [];
    for (const c of calls) {
      const r = results.get(c.id!);
      if (!r) continue;
      toolCalls.push({
        toolCallId: c.id!,
        toolName: c.name ?? "unknown",
        args: c.arguments ?? {},
        resultText: textOf(r),
        isError: r.isError ?? false,
        ...(typeof r.timestamp === "number" ? { resultTimestamp: r.timestamp } : {}),
      });
    }
    const rawChars = toolCalls.reduce((n, c) => n + c.resultText.length, 0);
    if (toolCalls.length === 0 || rawChars < minBatchChars) return;
    const laterText = assistants
      .slice(k + 1, k + 1 + LATER_WINDOW)
      .map((i) => {
        const m = messages[i]!;
        return [
          textOf(m),
          ...blocks(m)
            .filter((b) => b.type === "toolCall")
            .map((b) => JSON.stringify(b.arguments ?? {})),
        ].join("\n");
      })
      .join("\n");
    out.push({
      batch: { turnIndex: k, timestamp: assistant.timestamp ?? 0, assistantText: textOf(assistant).trim(), toolCalls },
      laterText,
      rawChars,
    });
  });
  return out;
}
