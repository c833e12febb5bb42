/**
 * The summarizer's contract with the worker: what goes in (a captured batch and its pre-minted refs,
 * or a chain's per-batch summaries) and what comes back (text, usage, cost, which body source made it,
 * every attempt and every operator-facing event). pi-condense's user notices become `events` here and
 * structured log lines, so the worker can put them in flush metrics instead of a TUI.
 */
import type { CapturedBatch } from "@condense/core";

/** Where a body came from; the worker records it in flush metrics. */
export type BodySource = "llm-primary" | "llm-fallback" | "deterministic";
export const BODY_SOURCES: readonly BodySource[] = ["llm-primary", "llm-fallback", "deterministic"];

/** CAP-SUM-7 outcome of one attempt against one model. */
export type AttemptOutcome = "ok" | "transient" | "auth" | "unusable";

export interface SummaryUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
}

export const zeroUsage = (): SummaryUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 });

export interface SummarizerAttempt {
  /** `provider/model-id`. */
  model: string;
  role: "primary" | "fallback";
  /** The single fleet-wide probe of a failing primary. */
  probe: boolean;
  outcome: AttemptOutcome;
  /** Error message, or `empty` / `truncated` for unusable output. */
  detail?: string;
  /** HTTP status of the provider response, when one arrived. */
  status?: number;
  timedOut?: "idle" | "ceiling";
  retryAfterMs?: number;
  durationMs: number;
  usage: SummaryUsage;
  /** USD, from the model's catalogue prices. */
  cost: number;
}

/** Structured replacements for pi-condense's notices; each is also logged once. */
export type SummarizerEvent =
  | { kind: "stalled"; model: string; seconds: number }
  | { kind: "ceiling-exceeded"; model: string; seconds: number }
  | { kind: "attempt-failed"; model: string; outcome: Exclude<AttemptOutcome, "ok">; message: string }
  | { kind: "fallback-entered"; primary: string; fallback: string }
  | { kind: "primary-recovered"; primary: string }
  | { kind: "deterministic-used"; reason: "no-model" | "all-models-failed" | "unusable-output" };

export interface FidelityReport {
  /** Key facts extracted from the raw outputs. */
  facts: number;
  presentBefore: number;
  presentAfter: number;
  /** Fractions; 1 when there are no facts. */
  before: number;
  after: number;
  /** Facts the guard appended. */
  appended: number;
  /** Facts still missing after the guard (the size cap stopped it). */
  missing: string[];
}

/** One summarizer call's result: a chain's range summary is exactly this. */
export interface RangeSummary {
  text: string;
  usage: SummaryUsage;
  /** USD over every attempt of this call, failed ones included (money actually spent). */
  cost: number;
  /** `provider/model-id`, or `deterministic`. */
  model: string;
  bodySource: BodySource;
  attempts: SummarizerAttempt[];
  events: SummarizerEvent[];
  durationMs: number;
}

export interface BatchSummary extends RangeSummary {
  /** Body with `tN` refs, guard facts and the ref footer: what enters the agent's context. */
  text: string;
  refs: string[];
  fidelity: FidelityReport;
  /** Σ resultText length of the batch: the worker's oversized check compares against this. */
  rawChars: number;
}

export interface SummarizeBatchOptions {
  /**
   * One pre-allocated `tN` per call of the batch, in call order (CAP-REF-1). The model never sees
   * them (its prompt labels calls `[[n:tool]]`); they are written into the text after it answers. So
   * they may come as a promise, awaited only once the model has answered: the worker reserves refs in
   * the database while the model call runs.
   */
  refs: readonly string[] | PromiseLike<readonly string[]>;
  /** The worker's shutdown signal; an abort rejects with an AbortError, never a result. */
  signal?: AbortSignal;
  /** Assistant text written after the batch; identifiers it mentions become facts the guard keeps. */
  laterText?: string;
}

export interface SummarizeRangeOptions {
  signal?: AbortSignal;
}

export interface FallbackState {
  /** `primary`: calls go to the primary model; `fallback`: the fleet is in an outage of the primary. */
  mode: "primary" | "fallback";
  primary: string | null;
  fallback: string;
  /** When the current outage began (epoch ms), fleet-wide. */
  since: number | null;
  /** When the primary was last probed (or the outage began). */
  lastProbeAt: number | null;
}

export interface Summarizer {
  summarizeBatch(batch: CapturedBatch, options: SummarizeBatchOptions): Promise<BatchSummary>;
  /** CAP-SUM-11 chain fusion of per-batch summaries (the distinct ones are joined). */
  summarizeRange(chainSummaries: readonly string[], options?: SummarizeRangeOptions): Promise<RangeSummary>;
  fallbackState(): Promise<FallbackState>;
}

/** The caller's signal fired: the work was abandoned, not failed. */
export class SummarizerAbortError extends Error {
  override readonly name = "AbortError";
  constructor(reason?: unknown) {
    super(reason instanceof Error ? reason.message : "summarization aborted by the caller");
  }
}
