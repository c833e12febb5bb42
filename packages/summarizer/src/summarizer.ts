/**
 * The two summarizers the worker can hold: `createSummarizer` (provider-backed, with retries, the
 * fleet-wide outage breaker and the deterministic last resort) and `createDeterministicSummarizer`
 * (no model at all). Both finish every batch the same way: `tN` labels rewritten, the fidelity guard,
 * the ref footer, usage and cost summed over all attempts, and the body source recorded.
 */
import { hostname } from "node:os";
import { refFooter, rewriteInlineRefs, type CapturedBatch } from "@condense/core";
import type { Registry } from "prom-client";
import { createMemoryBreakerStore } from "./breaker-memory.ts";
import type { BreakerStore } from "./breaker-store.ts";
import { parseSummarizerConfig, type SummarizerConfig } from "./config.ts";
import { deterministicBatchBody, deterministicFusion } from "./deterministic.ts";
import { applyFidelityGuard } from "./fidelity-guard.ts";
import { silentLogger, type SummarizerLogger } from "./logger.ts";
import { createSummarizerMetrics, type SummarizerMetrics } from "./metrics.ts";
import { resolveModel, type ResolvedModel } from "./model-resolve.ts";
import { createOutageRouter, DETERMINISTIC_LABEL, type OutageRouter, type RoutedText } from "./outage-routing.ts";
import { buildBatchPrompt, buildFusionPrompt } from "./prompts.ts";
import {
  SummarizerAbortError,
  zeroUsage,
  type BatchSummary,
  type FallbackState,
  type RangeSummary,
  type SummarizeBatchOptions,
  type Summarizer,
  type SummarizerAttempt,
  type SummaryUsage,
} from "./types.ts";

export interface SummarizerDeps {
  /** Fleet mode: `createRedisBreakerStore(redis, prefix)`. Default: in-memory (embedded mode). */
  breakerStore?: BreakerStore;
  logger?: SummarizerLogger;
  /** The app's prom-client registry (its /metrics). Default: a private registry. */
  registry?: Registry;
  now?: () => number;
  workerId?: string;
  /** See OutageRouterDeps.breakerWithoutFallbackModel (default true). */
  breakerWithoutFallbackModel?: boolean;
}

function sumUsage(attempts: readonly SummarizerAttempt[]): { usage: SummaryUsage; cost: number } {
  const usage = zeroUsage();
  let cost = 0;
  for (const a of attempts) {
    usage.input += a.usage.input;
    usage.output += a.usage.output;
    usage.cacheRead += a.usage.cacheRead;
    usage.cacheWrite += a.usage.cacheWrite;
    usage.totalTokens += a.usage.totalTokens;
    cost += a.cost;
  }
  return { usage, cost };
}

function isRefList(refs: SummarizeBatchOptions["refs"]): refs is readonly string[] {
  return Array.isArray(refs);
}

function checkRefs(batch: CapturedBatch, refs: readonly string[]): void {
  if (refs.length !== batch.toolCalls.length) {
    throw new Error(`summarizeBatch needs one ref per call: ${batch.toolCalls.length} calls, ${refs.length} refs`);
  }
}

interface Engine {
  config: SummarizerConfig;
  metrics: SummarizerMetrics;
  logger: SummarizerLogger;
  router: OutageRouter | null;
  primaryLabel: string | null;
  fallbackLabel: string;
  store: BreakerStore | null;
}

function noModelRoute(): RoutedText {
  return {
    text: null,
    bodySource: "deterministic",
    model: DETERMINISTIC_LABEL,
    deterministicReason: undefined,
    attempts: [],
    events: [{ kind: "deterministic-used", reason: "no-model" }],
  };
}

function buildSummarizer(engine: Engine): Summarizer {
  const { config, metrics, router } = engine;
  return {
    async summarizeBatch(batch, options: SummarizeBatchOptions): Promise<BatchSummary> {
      const started = performance.now();
      if (isRefList(options.refs)) checkRefs(batch, options.refs);
      if (options.signal?.aborted) throw new SummarizerAbortError(options.signal.reason);
      const routed = router ? await router.route(buildBatchPrompt(batch), options.signal, "batch") : noModelRoute();
      // Refs are needed only from here on (see SummarizeBatchOptions.refs).
      const refs = [...(await options.refs)];
      checkRefs(batch, refs);
      if (routed.text === null && routed.deterministicReason)
        routed.events.push({ kind: "deterministic-used", reason: routed.deterministicReason });
      const toolNames = batch.toolCalls.map((c) => c.toolName);
      const body =
        routed.text !== null
          ? rewriteInlineRefs(routed.text.trim(), toolNames, refs)
          : deterministicBatchBody(batch, refs, { maxShare: config.deterministicMaxShare });
      const footer = refFooter(refs);
      const rawChars = batch.toolCalls.reduce((n, c) => n + c.resultText.length, 0);
      const guard = applyFidelityGuard({
        summary: body,
        calls: batch.toolCalls,
        refs,
        ...(options.laterText !== undefined ? { laterText: options.laterText } : {}),
        maxChars: Math.max(0, rawChars - footer.length),
      });
      metrics.bodies.inc({ source: routed.bodySource });
      const { usage, cost } = sumUsage(routed.attempts);
      return {
        text: guard.text + footer,
        refs,
        usage,
        cost,
        model: routed.model,
        bodySource: routed.bodySource,
        attempts: routed.attempts,
        events: routed.events,
        fidelity: guard.report,
        rawChars,
        durationMs: Math.round(performance.now() - started),
      };
    },

    async summarizeRange(chainSummaries, options = {}): Promise<RangeSummary> {
      const started = performance.now();
      if (options.signal?.aborted) throw new SummarizerAbortError(options.signal.reason);
      const routed = router
        ? await router.route(buildFusionPrompt(chainSummaries), options.signal, "range")
        : noModelRoute();
      if (routed.text === null && routed.deterministicReason)
        routed.events.push({ kind: "deterministic-used", reason: routed.deterministicReason });
      metrics.bodies.inc({ source: routed.bodySource });
      const { usage, cost } = sumUsage(routed.attempts);
      return {
        text: routed.text !== null ? routed.text.trim() : deterministicFusion(chainSummaries),
        usage,
        cost,
        model: routed.model,
        bodySource: routed.bodySource,
        attempts: routed.attempts,
        events: routed.events,
        durationMs: Math.round(performance.now() - started),
      };
    },

    async fallbackState(): Promise<FallbackState> {
      if (!router || !engine.store) {
        return {
          mode: "primary",
          primary: engine.primaryLabel,
          fallback: engine.fallbackLabel,
          since: null,
          lastProbeAt: null,
        };
      }
      const s = await engine.store.read(router.breakerKey);
      return {
        mode: s.mode,
        primary: engine.primaryLabel,
        fallback: engine.fallbackLabel,
        since: s.since,
        lastProbeAt: s.lastProbeAt,
      };
    },
  };
}

/**
 * Provider-backed summarizer. With no model configured (`summarizerModel` "default"/"deterministic")
 * it is the deterministic summarizer. Throws on a malformed or unknown model: that is a config error.
 */
export function createSummarizer(configInput: unknown, deps: SummarizerDeps = {}): Summarizer {
  const config = parseSummarizerConfig(configInput);
  return createSummarizerForModels(
    config,
    {
      primary: resolveModel(config.summarizerModel, config),
      fallback: resolveModel(config.summarizerFallbackModel, config),
    },
    deps,
  );
}

/**
 * A summarizer over models already resolved (a handed-off model, or one of the operator's): the same
 * routing, outage breaker and deterministic last resort as `createSummarizer`. No primary: deterministic.
 */
export function createSummarizerForModels(
  configInput: unknown,
  models: { primary: ResolvedModel | null; fallback: ResolvedModel | null },
  deps: SummarizerDeps = {},
): Summarizer {
  const config = parseSummarizerConfig(configInput);
  const logger = deps.logger ?? silentLogger;
  const metrics = createSummarizerMetrics(deps.registry);
  const { primary, fallback } = models;
  if (!primary) {
    return buildSummarizer({
      config,
      metrics,
      logger,
      router: null,
      primaryLabel: null,
      fallbackLabel: DETERMINISTIC_LABEL,
      store: null,
    });
  }
  const distinctFallback = fallback && fallback.label !== primary.label ? fallback : null;
  const store = deps.breakerStore ?? createMemoryBreakerStore();
  const router = createOutageRouter({
    config,
    primary,
    fallback: distinctFallback,
    store,
    logger,
    metrics,
    now: deps.now ?? Date.now,
    workerId: deps.workerId ?? `${hostname()}:${process.pid}`,
    ...(deps.breakerWithoutFallbackModel !== undefined
      ? { breakerWithoutFallbackModel: deps.breakerWithoutFallbackModel }
      : {}),
  });
  return buildSummarizer({
    config,
    metrics,
    logger,
    router,
    primaryLabel: primary.label,
    fallbackLabel: distinctFallback?.label ?? DETERMINISTIC_LABEL,
    store,
  });
}

/** Extractive and free: the embedded default and the outage last resort. */
export function createDeterministicSummarizer(
  configInput: unknown = {},
  deps: Pick<SummarizerDeps, "registry" | "logger"> = {},
): Summarizer {
  const config = parseSummarizerConfig({
    ...(configInput as object),
    summarizerModel: "deterministic",
    summarizerFallbackModel: null,
  });
  return buildSummarizer({
    config,
    metrics: createSummarizerMetrics(deps.registry),
    logger: deps.logger ?? silentLogger,
    router: null,
    primaryLabel: null,
    fallbackLabel: DETERMINISTIC_LABEL,
    store: null,
  });
}
