/** POST /v1/sessions/{sessionId}/flushes: ask for the session's pending captures to be condensed. */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableRecord, Timestamp } from "../../common.schema.ts";

export const FLUSH_TRIGGERS = ["budget", "delta", "message-end", "manual", "rearmed"] as const;
export const FlushTrigger = z.enum(FLUSH_TRIGGERS).openapi("FlushTrigger");

const Count = z.number().finite().min(0);

export const MetricsSnapshotSchema = z
  .looseObject({
    openCycleThinkingTokens: Count,
    largestChainSharePct: Count,
    frontierGapTokens: Count,
    tokens: Count.nullable().optional(),
    contextWindow: Count.nullable().optional(),
  })
  .openapi("ContextMetricsSnapshot", { description: "Pre-flush context metrics (CAP-METRICS); extra numeric fields are kept." });

export const DetectedChainSchema = z
  .looseObject({
    startUserTimestamp: Timestamp,
    finalAssistantTimestamp: Timestamp.nullable(),
    middleToolCallIds: z.array(Identifier(512)).max(10_000),
    middleOccurrenceKeys: z.array(Identifier(600)).max(10_000).optional(),
    protectedToolCallIds: z.array(Identifier(512)).max(10_000).optional(),
  })
  .openapi("DetectedChain");

export const FlushBody = z
  .object({
    trigger: FlushTrigger.default("manual"),
    metrics: MetricsSnapshotSchema.optional(),
    chains: z.array(DetectedChainSchema).max(10_000).default([]),
    settings: StorableRecord.optional().openapi({ description: "Session settings; normalized by core, unknown keys round-trip." }),
    /** Optional client id for the flush request; repeating it returns the same flush (idempotent retry). */
    flushId: z.uuid().optional(),
  })
  .openapi("FlushRequest");
export type FlushBody = z.infer<typeof FlushBody>;

export const FlushAccepted = z
  .object({
    flushId: z.string(),
    /** Captures up to this sequence number are included in the flush. */
    cursor: z.number().int(),
    trigger: FlushTrigger,
    /** false when an identical flush id was already accepted (nothing new enqueued). */
    created: z.boolean(),
  })
  .openapi("FlushAccepted");
