/**
 * The worker's configuration is @condense/config's worker view (every variable is declared there),
 * with its summarizer settings typed as the summarizer takes them (the summarizer validates them).
 * `loadWorkerConfig()` with no argument reads this process's env.
 */
import { processEnv, workerConfig, type Env, type WorkerView } from "@condense/config";
import type { SummarizerConfigInput } from "@condense/summarizer";

export { ConfigError as WorkerConfigError } from "@condense/config";

export interface WorkerConfig extends Omit<WorkerView, "summarizer" | "sessionModels" | "traceFile" | "crashAt"> {
  summarizer: SummarizerConfigInput;
  /** Models a session may choose by its summarizerModel setting (CONDENSE_SUMMARIZER_MODELS). */
  sessionModels?: string[];
  traceFile?: string | undefined;
  crashAt?: string | undefined;
}

export function asWorkerConfig(view: WorkerView): WorkerConfig {
  return { ...view, summarizer: view.summarizer as SummarizerConfigInput };
}

export function loadWorkerConfig(env: Env = processEnv()): WorkerConfig {
  return asWorkerConfig(workerConfig(env));
}
