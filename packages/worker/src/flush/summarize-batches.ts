/**
 * CAP-FLUSH-5: one summarizer call per `summarize` batch, in parallel up to a bound, each with the
 * refs reserved for its calls. A call that throws is a failed batch (null), unless the job's signal
 * fired: then the whole run is abandoned (released for a re-run), never committed half-done.
 *
 * The refs may still be on their way: each batch asks `refsByKey()` only when its summarizer awaits its
 * refs, after the model call, so the reservation's round trip runs during that call instead of before it.
 */
import { borrowedSummaryText, callKey, type BatchPlan, type BatchSummaryResult } from "@condense/core";
import type { BatchSummary, Summarizer } from "@condense/summarizer";
import { mapBounded } from "../map-bounded.ts";

export interface SummarizeOutcome {
  results: Map<number, BatchSummaryResult | null>;
  details: Map<number, BatchSummary>;
  errors: { index: number; message: string }[];
}

/** Assistant text written after a batch in this flush: identifiers it names are facts the guard keeps. */
function laterTextOf(plans: readonly BatchPlan[], index: number): string | undefined {
  const text = plans
    .filter((p) => p.index > index)
    .map((p) => p.batch.assistantText)
    .filter(Boolean)
    .join("\n");
  return text ? text.slice(0, 8000) : undefined;
}

export async function summarizeBatches(
  summarizer: Summarizer,
  plans: readonly BatchPlan[],
  refsByKey: () => PromiseLike<ReadonlyMap<string, string>>,
  options: { signal: AbortSignal; concurrency: number },
): Promise<SummarizeOutcome> {
  const todo = plans.filter((p) => p.kind === "summarize");
  const results = new Map<number, BatchSummaryResult | null>();
  const details = new Map<number, BatchSummary>();
  const errors: SummarizeOutcome["errors"] = [];
  const refsOf = (byKey: ReadonlyMap<string, string>, p: BatchPlan) =>
    p.calls.map((c) => {
      const ref = byKey.get(callKey(c));
      if (!ref) throw new MissingRefError(callKey(c));
      return ref;
    });
  await mapBounded(todo, options.concurrency, async (p) => {
    const refs = whenAwaited(() => Promise.resolve(refsByKey()).then((m) => refsOf(m, p)));
    if (p.borrowed) {
      // Another session already condensed this content: a summary without a model call.
      const r = await refs;
      results.set(p.index, { text: borrowedSummaryText(p.calls, r), refs: r });
      return;
    }
    try {
      const laterText = laterTextOf(plans, p.index);
      const s = await summarizer.summarizeBatch(
        { ...p.batch, toolCalls: p.calls },
        { refs, signal: options.signal, ...(laterText ? { laterText } : {}) },
      );
      results.set(p.index, { text: s.text, refs: s.refs });
      details.set(p.index, s);
    } catch (err) {
      // a missing ref is a bug, not a failed batch
      if (options.signal.aborted || err instanceof MissingRefError) throw err;
      results.set(p.index, null);
      errors.push({ index: p.index, message: err instanceof Error ? err.message : String(err) });
    }
  });
  if (options.signal.aborted)
    throw options.signal.reason instanceof Error ? options.signal.reason : new Error("flush aborted");
  return { results, details, errors };
}

/** A thenable that starts `get` only when first awaited (so `refsByKey` is asked when the refs are needed). */
function whenAwaited<T>(get: () => Promise<T>): PromiseLike<T> {
  let p: Promise<T> | undefined;
  // biome-ignore lint/suspicious/noThenProperty: a lazy thenable on purpose: the work starts when first awaited
  return { then: (ok, err) => (p ??= get()).then(ok, err) };
}

class MissingRefError extends Error {
  constructor(key: string) {
    super(`no reserved ref for ${key}`);
  }
}
