/** GET /v1/sessions/{sessionId}/status: counters, context metrics, diagnostics, reclaim, cost, last flushes. */
import { z } from "@hono/zod-openapi";
import { CacheEconomicsSchema } from "../fleet/status.schema.ts";

const FlushAttempt = z
  .looseObject({
    flushRequestId: z.string().describe("The flush request the attempt ran for."),
    attempt: z.number().int().describe("Attempt number (1 = first run; more after retries)."),
    trigger: z.string().describe("The request's trigger."),
    outcome: z.string().describe("How the attempt ended (summarized, empty, failed, \u2026)."),
    reason: z.string().nullable().describe("Why, for outcomes that have one (e.g. the error); null otherwise."),
    model: z.string().nullable().optional().openapi({
      description: "The model(s) that produced this attempt's summaries (`provider/id`, `deterministic`).",
    }),
    summaryModels: z
      .array(
        z.object({
          summaryId: z.string().describe("The summary's id."),
          model: z.string().describe("The model that wrote it (`provider/id`, or `deterministic`)."),
          bodySource: z.string().describe("Where its body came from (llm, fallback, deterministic, ...)."),
        }),
      )
      .nullable()
      .optional()
      .openapi({ description: "The model that produced each summary of this attempt." }),
    summarizerSource: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "handed-off (the agent's own model), operator, worker-default or deterministic." }),
    summarizerNotice: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "Why the session's summarizerModel was not what summarized." }),
    createdAt: z.string().describe("When the attempt ended (ISO 8601)."),
  })
  .openapi("FlushAttempt");

export const SessionStatusSchema = z
  .object({
    sessionId: z.string().describe("The session id."),
    version: z.number().int().describe("The session's state version."),
    createdAt: z.string().describe("When the session was first seen (ISO 8601)."),
    updatedAt: z.string().describe("Last capture, flush or state change (ISO 8601)."),
    lastCaptureAt: z.string().nullable().describe("Last capture (ISO 8601); null before any."),
    lastFlushAt: z.string().nullable().describe("Last committed flush (ISO 8601); null before any."),
    captures: z
      .record(z.string(), z.number())
      .openapi({ description: "Counts by status (pending, summarized, skipped, deduped, stored), total and maxSeq." }),
    records: z.number().int().describe("Tool-call records in the state."),
    summaries: z.number().int().describe("Summaries in the state."),
    aliases: z.number().int().describe("Dedup aliases in the state."),
    chains: z.number().int().describe("Compressed chains in the state."),
    reclaim: z
      .object({
        rawChars: z.number().describe("Characters of the outputs that were summarized."),
        summaryChars: z.number().describe("Characters of their summaries."),
        reclaimedChars: z.number().describe("rawChars minus summaryChars."),
      })
      .describe("Characters reclaimed by summaries."),
    contextMetrics: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "The pre-flush context-metrics snapshot of the latest flush." }),
    diagnostics: z.record(z.string(), z.number()).describe("Render diagnostics reported by clients, by kind."),
    recoveries: z.number().int().describe("context_tree_query hits (originals the agent asked back)."),
    summarizer: z
      .looseObject({
        totalCost: z.number().describe("Summarizer cost so far (USD)."),
        totalInputTokens: z.number().describe("Summarizer input tokens."),
        totalOutputTokens: z.number().describe("Summarizer output tokens."),
        callCount: z.number().describe("Summarizer calls."),
      })
      .describe("Summarizer usage of the session."),
    frontier: z
      .looseObject({})
      .nullable()
      .describe("The last flushed call and its counters; null before the first flush."),
    queuedFlushRequests: z.number().int().describe("Flush requests not yet run."),
    lastFlushes: z.array(FlushAttempt).describe("The latest flush attempts, newest first."),
    settings: z.record(z.string(), z.unknown()).describe("The session's settings as the service holds them."),
    cacheEconomics: z
      .array(CacheEconomicsSchema)
      .describe(
        "Per agent model: cache writes this session's flushes cause against cache reads saved (the cost model's expectations).",
      ),
  })
  .openapi("SessionStatus");
