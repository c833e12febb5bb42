/**
 * Turns what core's `assembleFlush` returned into the rows `commitFlush` writes: records (stored
 * bodies and tenant-scope canonical copies attached), summaries, aliases, frontier, the stats and
 * usage of the processed batches only (a result discarded after a failed batch is not counted,
 * CAP-FLUSH-6), capture settlements, and the attempt's flush-metrics row.
 */
import type { AssembledFlush, FlushPlan } from "@condense/core";
import type { CaptureSettlement, FlushMetricsWrite, FlushWrites, RecordWrite } from "@condense/db";
import type { BatchSummary } from "@condense/summarizer";

export interface FlushWritesInput {
  plan: FlushPlan;
  assembled: AssembledFlush;
  details: ReadonlyMap<number, BatchSummary>;
  copies: ReadonlyMap<string, RecordWrite>;
  trimmed: readonly CaptureSettlement[];
  metrics: Omit<FlushMetricsWrite, "outcome">;
}

export interface UsageSummary {
  inputTokens: number;
  outputTokens: number;
  cost: number;
  calls: number;
  model?: string;
  bodySource?: string;
  fidelityScore?: number;
}

/** Usage of the processed summarize batches: the first `processedBatches` of the plan. */
export function processedUsage(plan: FlushPlan, processedBatches: number, details: ReadonlyMap<number, BatchSummary>): UsageSummary {
  const used = plan.batches.slice(0, processedBatches).map((b) => details.get(b.index)).filter((d): d is BatchSummary => d !== undefined);
  const distinct = (xs: string[]) => [...new Set(xs)].sort().join(",");
  const u: UsageSummary = {
    inputTokens: used.reduce((n, d) => n + d.usage.input, 0),
    outputTokens: used.reduce((n, d) => n + d.usage.output, 0),
    cost: used.reduce((n, d) => n + d.cost, 0),
    calls: used.length,
  };
  if (used.length > 0) {
    u.model = distinct(used.map((d) => d.model));
    u.bodySource = distinct(used.map((d) => d.bodySource));
    u.fidelityScore = used.reduce((n, d) => n + d.fidelity.after, 0) / used.length;
  }
  return u;
}

function settlement(d: AssembledFlush["dispositions"][number]): CaptureSettlement | null {
  switch (d.status) {
    case "summarized": return { key: d.key, status: "summarized" };
    case "stored": return { key: d.key, status: "stored", reason: "oversized-output" };
    case "deduped": return { key: d.key, status: "deduped", reason: `duplicate-of:${d.originalKey}` };
    case "skipped": return { key: d.key, status: "skipped", reason: d.reason };
    case "pending": return null;
  }
}

export function buildFlushWrites(input: FlushWritesInput): FlushWrites {
  const { plan, assembled } = input;
  const storedBodies = new Map<string, string>();
  for (const b of plan.batches) for (const s of b.stored) storedBodies.set(s.key, s.call.resultText);
  const records: RecordWrite[] = assembled.records.map((r) => {
    const body = storedBodies.get(r.key);
    return body !== undefined && r.stored ? { ...r, storedBody: body } : r;
  });
  const written = new Set(records.map((r) => r.key));
  for (const a of assembled.aliases) {
    const copy = input.copies.get(a.originalKey);
    if (copy && !written.has(copy.key)) { records.push(copy); written.add(copy.key); }
  }
  const usage = processedUsage(plan, assembled.processedBatches, input.details);
  const captures = [...input.trimmed, ...assembled.dispositions.map(settlement).filter((s): s is CaptureSettlement => s !== null)];
  const pendingLeft = assembled.dispositions.filter((d) => d.status === "pending").length;
  return {
    records,
    summaries: assembled.summaries,
    aliases: assembled.aliases,
    frontier: assembled.frontier,
    stats: { totalInputTokens: usage.inputTokens, totalOutputTokens: usage.outputTokens, totalCost: usage.cost, callCount: usage.calls },
    captures,
    metrics: {
      ...input.metrics,
      outcome: assembled.outcome,
      ...(pendingLeft > 0 ? { reason: `summarizer-failed: ${pendingLeft} call(s) left pending` } : {}),
      processedBatches: assembled.processedBatches,
      attemptedCalls: assembled.frontier?.attemptedToolCallCount ?? 0,
      dedupHits: assembled.dedupedCalls,
      rawChars: assembled.rawChars,
      summaryChars: assembled.summaryChars,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost: usage.cost,
      ...(usage.model ? { model: usage.model } : {}),
      ...(usage.bodySource ? { bodySource: usage.bodySource } : {}),
      ...(usage.fidelityScore !== undefined ? { fidelityScore: usage.fidelityScore } : {}),
    },
  };
}

/** Occurrence keys the commit leaves pending (a failed batch and everything after it). */
export function pendingKeys(assembled: AssembledFlush): string[] {
  return assembled.dispositions.filter((d) => d.status === "pending").map((d) => d.key);
}

