/** POST /v1/sessions/{sessionId}/flushes: ask for the session's pending captures to be condensed. */
import { z } from "@hono/zod-openapi";
import { FLUSH_TRIGGERS } from "../../vocabulary/flush-triggers.ts";
import { Identifier, StorableRecord, Timestamp } from "../common.schema.ts";

export const FlushTriggerSchema = z.enum(FLUSH_TRIGGERS).openapi("FlushTrigger", {
  description:
    "Why the client asks for a flush: a context budget, a growth delta, the end of an assistant message, a user command, a rearmed trigger, or the cost policy (roi: the flush pays for the cache it rewrites).",
});

const Count = z.number().finite().min(0);

export const MetricsSnapshotSchema = z
  .looseObject({
    openCycleThinkingTokens: Count.describe("Estimated thinking tokens in the open (unfinished) cycle.").openapi({
      example: 1200,
    }),
    largestChainSharePct: Count.describe(
      "Share of the context, in percent, taken by the largest closed chain.",
    ).openapi({ example: 18.5 }),
    frontierGapTokens: Count.describe(
      "Estimated tokens of tool output after the last flushed call (not yet condensed).",
    ).openapi({ example: 30500 }),
    tokens: Count.nullable()
      .optional()
      .describe("Context tokens of the last request, when the provider reported them.")
      .openapi({ example: 91000 }),
    contextWindow: Count.nullable()
      .optional()
      .describe("The model's context window in tokens, when known.")
      .openapi({ example: 200000 }),
    expectedCacheWriteTokens: Count.optional()
      .describe("The cost model's expectation: prompt-cache tokens this flush rewrites.")
      .openapi({ example: 60000 }),
    expectedCacheReadSavedTokens: Count.optional()
      .describe("The cost model's expectation: cache-read tokens the flush saves over the remaining requests.")
      .openapi({ example: 240000 }),
    agentModel: z
      .string()
      .max(512)
      .optional()
      .describe("The agent's model as its usage reported it (the prompt cache belongs to it).")
      .openapi({ example: "anthropic/claude-sonnet-4-5" }),
  })
  .openapi("ContextMetricsSnapshot", {
    description: "Pre-flush context metrics (CAP-METRICS); extra numeric fields are kept.",
  });

export const DetectedChainSchema = z
  .looseObject({
    startUserTimestamp: Timestamp.describe(
      "Timestamp of the user message that opens the chain (its identity).",
    ).openapi({ example: 1718000000000 }),
    finalAssistantTimestamp: Timestamp.nullable()
      .describe("Timestamp of the assistant message that closes it; null while open.")
      .openapi({ example: 1718000090000 }),
    middleToolCallIds: z
      .array(Identifier(512))
      .max(10_000)
      .describe("Tool-call ids inside the chain that compression may drop.")
      .openapi({ example: ["toolu_01A", "toolu_01B"] }),
    middleOccurrenceKeys: z
      .array(Identifier(600))
      .max(10_000)
      .optional()
      .describe("The same calls as occurrence keys (`id@resultTimestamp`), when known."),
    protectedToolCallIds: z
      .array(Identifier(512))
      .max(10_000)
      .optional()
      .describe("Calls inside the chain that are protected (kept verbatim in the chain block)."),
    graceKeys: z
      .array(Identifier(600))
      .max(10_000)
      .optional()
      .describe("Keys of this chain in recovery grace (recently recovered by a query); non-empty defers the chain."),
    deferred: z
      .boolean()
      .optional()
      .describe(
        "True when recovery grace defers the chain's compression (the client's view; the worker re-derives it).",
      ),
  })
  .openapi("DetectedChain", {
    description: "A closed user-to-final-answer chain the client detected, for chain compression after the flush.",
  });

export const FlushBody = z
  .object({
    trigger: FlushTriggerSchema.default("manual").describe("Why the flush is requested (default manual)."),
    metrics: MetricsSnapshotSchema.optional().describe(
      "The client's context metrics just before the flush (recorded with the flush's metrics row).",
    ),
    chains: z
      .array(DetectedChainSchema)
      .max(10_000)
      .default([])
      .describe("Closed chains to compress after the flush (default none)."),
    settings: StorableRecord.optional().openapi({
      description: "Session settings; normalized by core, unknown keys round-trip.",
      example: { autoBudgetThreshold: 0.6 },
    }),
    /** Optional client id for the flush request; repeating it returns the same flush (idempotent retry). */
    flushId: z
      .uuid()
      .optional()
      .describe("Optional client id (uuid); repeating it returns the same flush (idempotent retry).")
      .openapi({ example: "3f2b8c1e-7a4d-4e9b-9c61-2d5e8f0a1b23" }),
    /**
     * The agent handed off its summarizer model for this session (PUT .../summarizer). When the service
     * no longer holds it (it restarted), the flush is refused with 409 `summarizer_not_handed_off`, so
     * the agent hands it off again and retries, instead of the flush running on another model.
     */
    summarizerHandedOff: z
      .boolean()
      .optional()
      .describe(
        "True when the agent handed off its own summarizer model for this session; the service refuses the flush with 409 summarizer_not_handed_off when it no longer holds it.",
      ),
  })
  .openapi("FlushRequest", {
    example: {
      trigger: "message-end",
      metrics: {
        openCycleThinkingTokens: 0,
        largestChainSharePct: 0,
        frontierGapTokens: 30500,
        tokens: 91000,
        contextWindow: 200000,
      },
      chains: [],
    },
  });
export type FlushBody = z.infer<typeof FlushBody>;

export const FlushAccepted = z
  .object({
    flushId: z
      .string()
      .describe("The flush request's id (the client's, or a generated uuid).")
      .openapi({ example: "3f2b8c1e-7a4d-4e9b-9c61-2d5e8f0a1b23" }),
    /** Captures up to this sequence number are included in the flush. */
    cursor: z
      .number()
      .int()
      .describe("Captures up to this sequence number are included in the flush.")
      .openapi({ example: 42 }),
    trigger: FlushTriggerSchema.describe("The trigger, echoed."),
    /** false when an identical flush id was already accepted (nothing new enqueued). */
    created: z
      .boolean()
      .describe("false when this flush id was already accepted (nothing new was enqueued).")
      .openapi({ example: true }),
  })
  .openapi("FlushAccepted");
