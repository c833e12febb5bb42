/**
 * @condense/worker: the flush pipeline as a job processor (flush-session, compress-chains), the
 * runtime that builds database, queue and summarizer from configuration, and the worker's config.
 */
export { createRuntime, type Runtime, type RuntimeDeps } from "./runtime.ts";
export { asWorkerConfig, loadWorkerConfig, WorkerConfigError, type WorkerConfig } from "./config.ts";
export { createJobHandler, type JobHandlerDeps, type FlushTrace } from "./job-handler.ts";
export {
  runFlush,
  SummarizerFailedError,
  type FlushDeps,
  type FlushJob,
  type FlushRunResult,
} from "./flush/run-flush.ts";
export { startFlushClock, type FlushClock, type FlushStage, type FlushTimings } from "./flush/flush-timings.ts";
export { runChainStage, type ChainStageDeps, type ChainStageResult } from "./chains/chain-stage.ts";
export { parseRequestChains, type RequestChains } from "./chains/request-chains.ts";
export { CRASH_POINTS, crashHooksFromSpec, parseCrashSpec, type CrashPoint, type FlushHooks } from "./crash-hooks.ts";
export { startRequeueSweeper, type RequeueSweeper } from "./requeue-sweeper.ts";
export { startRetentionSchedule, type RetentionSchedule } from "./retention-schedule.ts";
export { createWorkerMetrics, type WorkerMetrics } from "./worker-metrics.ts";
export {
  createSummarizerSelection,
  type SelectSummarizer,
  type SelectedSummarizer,
  type SummarizerSource,
  type SelectionDeps,
} from "./summarizer-selection.ts";
/** The in-memory registry of handed-off models, for the composition root to share with the API app. */
export { createHandOffRegistry, type SummarizerHandOffStore } from "@condense/summarizer";
export { newStartupState, type StartupState } from "@condense/db";
