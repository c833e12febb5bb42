/**
 * A Summarizer for failure injection: each batch call is answered by a script (text, or a thrown
 * error), and the result is finished exactly as the real summarizer finishes it (ref footer,
 * usage, body source), so the worker cannot tell the difference.
 */
import { refFooter, rewriteInlineRefs, type CapturedBatch } from "@condense/core";
import type { BatchSummary, RangeSummary, Summarizer } from "@condense/summarizer";

export interface ScriptedSummarizer extends Summarizer {
  batchCalls: { batch: CapturedBatch; refs: string[] }[];
  rangeCalls: string[][];
}

export function scriptedSummarizer(
  opts: {
    batch?: (batch: CapturedBatch, n: number) => string | Error;
    range?: (texts: readonly string[], n: number) => string | Error;
  } = {},
): ScriptedSummarizer {
  const batchCalls: ScriptedSummarizer["batchCalls"] = [];
  const rangeCalls: string[][] = [];
  const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120 };
  return {
    batchCalls,
    rangeCalls,
    async summarizeBatch(batch, options): Promise<BatchSummary> {
      const call = { batch, refs: [] as string[] };
      batchCalls.push(call);
      const out = opts.batch
        ? opts.batch(batch, batchCalls.length)
        : batch.toolCalls.map((c, i) => `- [[${i + 1}:${c.toolName}]] ran ${c.toolName}`).join("\n");
      // as the real summarizer: refs are awaited once the "model" has answered
      const refs = [...(await options.refs)];
      call.refs = refs;
      if (out instanceof Error) throw out;
      const text =
        rewriteInlineRefs(
          out,
          batch.toolCalls.map((c) => c.toolName),
          refs,
        ) + refFooter(refs);
      return {
        text,
        refs,
        usage: { ...usage },
        cost: 0.001,
        model: "scripted/model",
        bodySource: "llm-primary",
        attempts: [],
        events: [],
        fidelity: { facts: 0, presentBefore: 0, presentAfter: 0, before: 1, after: 1, appended: 0, missing: [] },
        rawChars: batch.toolCalls.reduce((n, c) => n + c.resultText.length, 0),
        durationMs: 1,
      };
    },
    async summarizeRange(texts): Promise<RangeSummary> {
      rangeCalls.push([...texts]);
      const out = opts.range ? opts.range(texts, rangeCalls.length) : `fused ${texts.length} summaries`;
      if (out instanceof Error) throw out;
      return {
        text: out,
        usage: { ...usage },
        cost: 0.002,
        model: "scripted/model",
        bodySource: "llm-primary",
        attempts: [],
        events: [],
        durationMs: 1,
      };
    },
    async fallbackState() {
      return { mode: "primary", primary: "scripted/model", fallback: "deterministic", since: null, lastProbeAt: null };
    },
  };
}
