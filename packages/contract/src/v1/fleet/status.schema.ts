/** GET /v1/fleet/status: queue depth, workers, recent flush outcomes, fallback state, dedup hit rate. */
import { z } from "@hono/zod-openapi";

export const FleetStatusQuery = z.object({
  minutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .optional()
    .openapi({
      param: { name: "minutes", in: "query" },
      description: "Window for flush outcomes (default from config).",
    }),
});

/** Expected cache writes Condense's flushes cause against the cache reads they save, for one agent model. */
export const CacheEconomicsSchema = z
  .object({
    model: z.string().describe("The agent's model as its usage reported it; unknown when the client sent none."),
    flushes: z.number().int().describe("Flushes that changed the session's state."),
    expectedCacheWriteTokens: z
      .number()
      .describe("Cache tokens those flushes rewrite (prefix broken at the first stubbed result)."),
    expectedCacheReadSavedTokens: z
      .number()
      .describe("Cache-read tokens they save over the session's expected remaining requests."),
  })
  .openapi("CacheEconomics");

export const FleetStatusSchema = z
  .object({
    windowMinutes: z.number().int().describe("The window the figures cover, in minutes."),
    queue: z
      .object({
        kind: z.string().describe("Queue implementation (bullmq or in-process)."),
        waiting: z.number().describe("Jobs waiting."),
        active: z.number().describe("Jobs running."),
        delayed: z.number().describe("Jobs delayed (retry backoff)."),
        failed: z.number().describe("Jobs that failed for good."),
        workers: z.number().nullable().describe("Workers connected; null when the queue cannot tell."),
      })
      .nullable()
      .describe("The flush queue; null when it cannot be read."),
    flushes: z
      .object({
        total: z.number().describe("Flush attempts in the window."),
        byOutcome: z.record(z.string(), z.number()).describe("Attempts by outcome."),
      })
      .describe("Flush attempts in the window."),
    dedup: z
      .object({
        hits: z.number().describe("Calls whose output was already known (deduplicated)."),
        attemptedCalls: z.number().describe("Calls the flushes looked at."),
        hitRate: z.number().describe("hits / attemptedCalls (0 when none)."),
      })
      .describe("Deduplication in the window."),
    fallback: z
      .object({
        mode: z
          .enum(["primary", "fallback"])
          .describe("primary: the configured model; fallback: the fallback model while the primary fails."),
        since: z.number().nullable().describe("When the current mode began (epoch ms)."),
        lastProbeAt: z.number().nullable().describe("Last probe of the primary (epoch ms)."),
      })
      .nullable()
      .openapi({ description: "The summarizer outage breaker; null when this deployment does not report it." }),
    usage: z
      .object({
        inputTokens: z.number().describe("Summarizer input tokens."),
        outputTokens: z.number().describe("Summarizer output tokens."),
        cost: z.number().describe("Summarizer cost (USD)."),
      })
      .describe("Summarizer usage in the window."),
    runMs: z
      .object({
        avg: z.number().nullable().describe("Mean (ms); null without flushes."),
        p95: z.number().nullable().describe("95th percentile (ms); null without flushes."),
      })
      .describe("How long flushes ran."),
    queueWaitMs: z
      .object({
        avg: z.number().nullable().describe("Mean (ms); null without flushes."),
        p95: z.number().nullable().describe("95th percentile (ms); null without flushes."),
      })
      .describe("How long flush jobs waited in the queue."),
    sessions: z
      .object({
        total: z.number().describe("Sessions of the tenant."),
        active: z.number().describe("Sessions updated in the window."),
      })
      .describe("Session counts."),
    pendingCaptures: z.number().describe("Captured calls no flush has settled yet, across sessions."),
    queuedFlushRequests: z.number().describe("Flush requests not yet run, across sessions."),
    recoveries: z.number().describe("context_tree_query hits in the window."),
    diagnostics: z.record(z.string(), z.number()).openapi({
      description:
        "Diagnostics first reported in the window, per kind (orphan-sweep, unresolved-range, range-id-mismatch, malformed-message, backfill-empty).",
    }),
    cacheEconomics: z
      .array(CacheEconomicsSchema)
      .describe("Per agent model, over the window: cache writes Condense causes against cache reads saved."),
  })
  .openapi("FleetStatus");
