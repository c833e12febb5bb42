/** GET /v1/fleet/status: queue depth, workers, recent flush outcomes, fallback state, dedup hit rate. */
import { z } from "@hono/zod-openapi";

export const FleetStatusQuery = z.object({
  minutes: z.coerce.number().int().min(1).max(7 * 24 * 60).optional().openapi({ param: { name: "minutes", in: "query" }, description: "Window for flush outcomes (default from config)." }),
});

export const FleetStatusSchema = z
  .object({
    windowMinutes: z.number().int(),
    queue: z.object({ kind: z.string(), waiting: z.number(), active: z.number(), delayed: z.number(), failed: z.number(), workers: z.number().nullable() }).nullable(),
    flushes: z.object({ total: z.number(), byOutcome: z.record(z.string(), z.number()) }),
    dedup: z.object({ hits: z.number(), attemptedCalls: z.number(), hitRate: z.number() }),
    fallback: z
      .object({ mode: z.enum(["primary", "fallback"]), since: z.number().nullable(), lastProbeAt: z.number().nullable() })
      .nullable()
      .openapi({ description: "The summarizer outage breaker; null when this deployment does not report it." }),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cost: z.number() }),
    runMs: z.object({ avg: z.number().nullable(), p95: z.number().nullable() }),
    queueWaitMs: z.object({ avg: z.number().nullable(), p95: z.number().nullable() }),
    sessions: z.object({ total: z.number(), active: z.number() }),
    pendingCaptures: z.number(),
    queuedFlushRequests: z.number(),
    recoveries: z.number(),
  })
  .openapi("FleetStatus");
