/**
 * Summarizer configuration: which models to call, how long to wait, how hard to retry and how the
 * outage breaker behaves. Parsed with zod so a worker's env/config layer can validate it once;
 * every field has a default, so `{}` is a valid config (the deterministic summarizer only).
 */
import { z } from "zod";

export const THINKING_SETTINGS = ["default", "off", "minimal", "low", "medium", "high", "xhigh"] as const;

/** A model that is not in pi-ai's catalogue: a self-hosted endpoint, a proxy, or a test server. */
export const customModelSchema = z.object({
  provider: z.string().min(1),
  id: z.string().min(1),
  api: z.enum(["openai-completions", "anthropic-messages"]),
  baseUrl: z.string().url(),
  name: z.string().optional(),
  /** Literal key, or the name of an env var that holds it. Neither: pi-ai's env lookup for the provider. */
  apiKey: z.string().optional(),
  apiKeyEnv: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  reasoning: z.boolean().default(false),
  contextWindow: z.number().int().positive().default(128_000),
  maxTokens: z.number().int().positive().default(8192),
  /** USD per million tokens, the same unit pi-ai's catalogue uses. */
  cost: z
    .object({
      input: z.number().nonnegative().default(0),
      output: z.number().nonnegative().default(0),
      cacheRead: z.number().nonnegative().default(0),
      cacheWrite: z.number().nonnegative().default(0),
    })
    .default({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
});
export type CustomModelConfig = z.infer<typeof customModelSchema>;

const modelRef = z.string().trim().min(1);

export const summarizerConfigSchema = z.object({
  /** "provider/model-id" (split at the first "/"), or "default"/"deterministic"/"" for no model. */
  summarizerModel: modelRef.default("default"),
  /** Used fleet-wide while the primary is failing. Absent: the deterministic summarizer. */
  summarizerFallbackModel: modelRef.nullable().default(null),
  summarizerThinking: z.enum(THINKING_SETTINGS).default("default"),
  /** Reset by every stream event, so it also bounds time to first token. 0 = off. */
  summarizerIdleTimeoutMs: z.number().int().nonnegative().default(20_000),
  /** Hard cap per attempt. 0 = off. */
  summarizerMaxTimeoutMs: z.number().int().nonnegative().default(180_000),
  /** Extra attempts per model on transient failures (p-retry `retries`). */
  retries: z.number().int().nonnegative().default(2),
  retryMinDelayMs: z.number().int().nonnegative().default(1000),
  retryMaxDelayMs: z.number().int().nonnegative().default(30_000),
  /** A Retry-After longer than this is not waited for: the call moves on to the fallback instead. */
  maxRetryAfterMs: z.number().int().nonnegative().default(60_000),
  /** One probe of a failing primary per cooldown, fleet-wide. */
  breakerCooldownMs: z.number().int().positive().default(600_000),
  /** Output token cap per call; summaries are short, and a cap turns a runaway into `truncated`. */
  maxOutputTokens: z.number().int().positive().default(4096),
  /** Per-provider API keys; a provider not listed here uses pi-ai's env lookup. */
  apiKeys: z.record(z.string(), z.string()).default({}),
  customModels: z.array(customModelSchema).default([]),
  /** Size budget of the deterministic body, as a share of the raw batch text. */
  deterministicMaxShare: z.number().positive().max(1).default(0.25),
});
export type SummarizerConfig = z.infer<typeof summarizerConfigSchema>;
export type SummarizerConfigInput = z.input<typeof summarizerConfigSchema>;

export function parseSummarizerConfig(input: unknown): SummarizerConfig {
  return summarizerConfigSchema.parse(input ?? {});
}
