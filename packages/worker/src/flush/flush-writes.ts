/**
 * Turns what core's `assembleFlush` returned into the rows `commitFlush` writes: records (stored
 * bodies attached), summaries, aliases, frontier, the stats and
 * usage of the processed batches only (a result discarded after a failed batch is not counted,
 * CAP-FLUSH-6), capture settlements, and the attempt's flush-metrics row.
 */
import { callKey, type AssembledFlush, type FlushPlan } from "@condense/core";
import type { CaptureSettlement, FlushMetricsWrite, FlushWrites, RecordWrite, SummaryModel } from "@condense/db";
import type { BatchSummary } from "@condense/summarizer";

export interface FlushWritesInput {
  plan: FlushPlan;
  assembled: AssembledFlush;
  details: ReadonlyMap<number, BatchSummary>;
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
export function processedUsage(
  plan: FlushPlan,
  processedBatches: number,
  details: ReadonlyMap<number, BatchSummary>,
): UsageSummary {
  const used = plan.batches
    .slice(0, processedBatches)
    .map((b) => details.get(b.index))
    .filter((d): d is BatchSummary => d !== undefined);
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
    case "summarized":
      return { key: d.key, status: "summarized" };
    case "stored":
      return { key: d.key, status: "stored", reason: "oversized-output" };
    case "deduped":
      return { key: d.key, status: "deduped", reason: `duplicate-of:${d.originalKey}` };
    case "skipped":
      return { key: d.key, status: "skipped", reason: d.reason };
    case "pending":
      return null;
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
  const usage = processedUsage(plan, assembled.processedBatches, input.details);
  const summaryModels = modelsBySummary(plan, assembled, input.details);
  const notice = summarizerNotice(input.metrics.summarizerNotice, plan, assembled.processedBatches, input.details);
  const captures = [
    ...input.trimmed,
    ...assembled.dispositions.map(settlement).filter((s): s is CaptureSettlement => s !== null),
  ];
  const pendingLeft = assembled.dispositions.filter((d) => d.status === "pending").length;
  return {
    records,
    summaries: assembled.summaries,
    aliases: assembled.aliases,
    frontier: assembled.frontier,
    stats: {
      totalInputTokens: usage.inputTokens,
      totalOutputTokens: usage.outputTokens,
      totalCost: usage.cost,
      callCount: usage.calls,
    },
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
      ...(summaryModels.length > 0 ? { summaryModels } : {}),
      ...(notice ? { summarizerNotice: notice } : {}),
    },
  };
}

/** Which model produced each committed summary (the summary covering a batch's calls). */
export function modelsBySummary(
  plan: FlushPlan,
  assembled: AssembledFlush,
  details: ReadonlyMap<number, BatchSummary>,
): SummaryModel[] {
  const byKey = new Map<string, string>();
  for (const s of assembled.summaries) for (const k of s.coverage) byKey.set(k, s.id);
  const out: SummaryModel[] = [];
  const seen = new Set<string>();
  for (const b of plan.batches.slice(0, assembled.processedBatches)) {
    const d = details.get(b.index);
    const id = d ? b.calls.map((c) => byKey.get(callKey(c))).find((x) => x !== undefined) : undefined;
    if (!d || !id || seen.has(id)) continue;
    seen.add(id);
    out.push({ summaryId: id, model: d.model, bodySource: d.bodySource });
  }
  return out;
}

/**
 * The selection's notice plus what went wrong on the way to the committed summaries (a stalled or
 * failing model, the switch to a fallback, a deterministic body), each said once: pi-condense's
 * CAP-SUM-8/9 notices, kept for the session's status instead of a TUI.
 */
function summarizerNotice(
  selection: string | undefined,
  plan: FlushPlan,
  processed: number,
  details: ReadonlyMap<number, BatchSummary>,
): string | undefined {
  const lines = new Set<string>(selection ? [selection] : []);
  for (const b of plan.batches.slice(0, processed)) {
    for (const e of details.get(b.index)?.events ?? []) {
      switch (e.kind) {
        case "stalled":
          lines.add(`summarizer ${e.model} stalled (no output for ${e.seconds}s)`);
          break;
        case "ceiling-exceeded":
          lines.add(`summarizer ${e.model} exceeded its ${e.seconds}s ceiling`);
          break;
        case "attempt-failed":
          if (e.outcome !== "unusable") lines.add(`summarizer ${e.model} failed: ${e.message.slice(0, 200)}`);
          break;
        case "fallback-entered":
          lines.add(`summarizer model ${e.primary} failing, using ${e.fallback} until it recovers`);
          break;
        case "primary-recovered":
          lines.add(`summarizer model ${e.primary} recovered`);
          break;
        case "deterministic-used":
          if (e.reason !== "no-model") lines.add(`deterministic summary used (${e.reason})`);
          break;
      }
    }
  }
  return lines.size > 0 ? [...lines].join("; ").slice(0, 2000) : undefined;
}

/** Occurrence keys the commit leaves pending (a failed batch and everything after it). */
export function pendingKeys(assembled: AssembledFlush): string[] {
  return assembled.dispositions.filter((d) => d.status === "pending").map((d) => d.key);
}
