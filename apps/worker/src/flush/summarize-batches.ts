/**
 * CAP-FLUSH-5: one summarizer call per `summarize` batch, in parallel up to a bound, each with the
 * refs reserved for its calls. A call that throws is a failed batch (null), unless the job's signal
 * fired: then the whole run is abandoned (released for a re-run), never committed half-done.
 */
import { callKey, type BatchPlan, type BatchSummaryResult } from "@condense/core";
import type { BatchSummary, Summarizer } from "@condense/summarizer";
import { mapBounded } from "../map-bounded.ts";

export interface SummarizeOutcome {
  results: Map<number, BatchSummaryResult | null>;
  details: Map<number, BatchSummary>;
  errors: { index: number; message: string }[];
}

/** Assistant text written after a batch in this flush: identifiers it names are facts the guard keeps. */
function laterTextOf(plans: readonly BatchPlan[], index: number): string | undefined {
  const text = plans.filter((p) => p.index > index).map((p) => p.batch.assistantText).filter(Boolean).join("\n");
  return text ? text.slice(0, 8000) : undefined;
}

export async function summarizeBatches(
  summarizer: Summarizer,
  plans: readonly BatchPlan[],
  refsByKey: ReadonlyMap<string, string>,
  options: { signal: AbortSignal; concurrency: number },
): Promise<SummarizeOutcome> {
  const todo = plans.filter((p) => p.kind === "summarize");
  const results = new Map<number, BatchSummaryResult | null>();
  const details = new Map<number, BatchSummary>();
  const errors: SummarizeOutcome["errors"] = [];
  await mapBounded(todo, options.concurrency, async (p) => {
    const refs = p.calls.map((c) => {
      const ref = refsByKey.get(callKey(c));
      if (!ref) throw new Error(`no reserved ref for ${callKey(c)}`);
      return ref;
    });
    try {
      const laterText = laterTextOf(plans, p.index);
      const s = await summarizer.summarizeBatch({ ...p.batch, toolCalls: p.calls }, { refs, signal: options.signal, ...(laterText ? { laterText } : {}) });
      results.set(p.index, { text: s.text, refs: s.refs });
      details.set(p.index, s);
    } catch (err) {
      if (options.signal.aborted) throw err;
      results.set(p.index, null);
      errors.push({ index: p.index, message: err instanceof Error ? err.message : String(err) });
    }
  });
  if (options.signal.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error("flush aborted");
  return { results, details, errors };
}
