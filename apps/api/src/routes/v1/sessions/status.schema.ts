/** GET /v1/sessions/{sessionId}/status: counters, context metrics, diagnostics, reclaim, cost, last flushes. */
import { z } from "@hono/zod-openapi";

const FlushAttempt = z
  .looseObject({
    flushRequestId: z.string(),
    attempt: z.number().int(),
    trigger: z.string(),
    outcome: z.string(),
    reason: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("FlushAttempt");

export const SessionStatusSchema = z
  .object({
    sessionId: z.string(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastCaptureAt: z.string().nullable(),
    lastFlushAt: z.string().nullable(),
    captures: z.record(z.string(), z.number()).openapi({ description: "Counts by status (pending, summarized, skipped, deduped, stored), total and maxSeq." }),
    records: z.number().int(),
    summaries: z.number().int(),
    aliases: z.number().int(),
    chains: z.number().int(),
    reclaim: z.object({ rawChars: z.number(), summaryChars: z.number(), reclaimedChars: z.number() }),
    contextMetrics: z.record(z.string(), z.unknown()).nullable().openapi({ description: "The pre-flush context-metrics snapshot of the latest flush." }),
    diagnostics: z.record(z.string(), z.number()),
    recoveries: z.number().int(),
    summarizer: z.looseObject({ totalCost: z.number(), totalInputTokens: z.number(), totalOutputTokens: z.number(), callCount: z.number() }),
    frontier: z.looseObject({}).nullable(),
    queuedFlushRequests: z.number().int(),
    lastFlushes: z.array(FlushAttempt),
    settings: z.record(z.string(), z.unknown()),
  })
  .openapi("SessionStatus");
