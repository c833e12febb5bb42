/** @condense/summarizer: provider-backed and deterministic summarizers, outage breaker, fidelity guard. */
export type {
  BatchSummary,
  BodySource,
  AttemptOutcome,
  FallbackState,
  FidelityReport,
  RangeSummary,
  SummarizeBatchOptions,
  SummarizeRangeOptions,
  Summarizer,
  SummarizerAttempt,
  SummarizerEvent,
  SummaryUsage,
} from "./types.ts";
export { BODY_SOURCES, SummarizerAbortError } from "./types.ts";
export {
  createSummarizer,
  createSummarizerForModels,
  createDeterministicSummarizer,
  type SummarizerDeps,
} from "./summarizer.ts";
export {
  summarizerConfigSchema,
  customModelSchema,
  parseSummarizerConfig,
  THINKING_SETTINGS,
  type SummarizerConfig,
  type SummarizerConfigInput,
  type CustomModelConfig,
} from "./config.ts";
export { applyFidelityGuard, type FidelityGuardInput, type FidelityGuardResult } from "./fidelity-guard.ts";
export { extractFacts, factPresent, type Fact, type FactKind } from "./facts.ts";
export { deterministicBatchBody, deterministicCallBullet, deterministicFusion } from "./deterministic.ts";
export type { BreakerStore, BreakerSnapshot } from "./breaker-store.ts";
export { createMemoryBreakerStore } from "./breaker-memory.ts";
export { createRedisBreakerStore } from "./breaker-redis.ts";
export { createSummarizerMetrics, type SummarizerMetrics } from "./metrics.ts";
export type { SummarizerLogger } from "./logger.ts";
export { buildBatchPrompt, buildFusionPrompt } from "./prompts.ts";
export { resolveModel, isNoModel, splitModelRef, type ResolvedModel } from "./model-resolve.ts";
export { piAi } from "./pi-ai.ts";
export {
  handedOffToResolved,
  handedOffLabel,
  redactHandOff,
  type HandedOffModel,
  type HandedOffAuth,
  type SummarizerHandOff,
} from "./handed-off-model.ts";
export {
  createHandOffRegistry,
  type SummarizerHandOffStore,
  type HandOffEntry,
  type HandOffRegistryOptions,
} from "./handoff-registry.ts";
