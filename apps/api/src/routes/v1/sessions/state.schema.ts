/** GET /v1/sessions/{sessionId}/state?since=<version>: core's StateDelta wire format. */
import { z } from "@hono/zod-openapi";

export const StateQuery = z.object({
  since: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).openapi({
    param: { name: "since", in: "query" },
    description: "The version the client already has; 0 asks for a full snapshot.",
    example: 0,
  }),
});

const ToolCallRecord = z
  .looseObject({
    key: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    args: z.record(z.string(), z.unknown()),
    resultText: z.string(),
    isError: z.boolean(),
    turnIndex: z.number(),
    timestamp: z.number(),
    resultTimestamp: z.number().optional(),
    shortRef: z.string().optional(),
    contentHash: z.string().optional(),
    stored: z.object({ bytes: z.number(), preview: z.string() }).optional(),
    summaryId: z.string().optional(),
    backfilled: z.boolean().optional(),
  })
  .openapi("ToolCallRecord");

const SummaryEntry = z
  .looseObject({
    id: z.string(),
    text: z.string(),
    refs: z.array(z.object({ shortId: z.string(), toolCallId: z.string(), resultTimestamp: z.number().optional() })),
    coverage: z.array(z.string()),
    toolNames: z.array(z.string()),
    turnIndex: z.number(),
    timestamp: z.number(),
  })
  .openapi("SummaryEntry");

const ChainEntry = z
  .looseObject({
    blockId: z.string(),
    startUserTimestamp: z.number(),
    finalAssistantTimestamp: z.number().nullable(),
    droppedToolCallIds: z.array(z.string()),
    toolRefs: z.array(z.string()),
    compressedAt: z.number(),
  })
  .openapi("ChainEntry");

export const StateDeltaSchema = z
  .object({
    format: z.literal("condense.state-delta/1"),
    fromVersion: z.number().int(),
    toVersion: z.number().int(),
    records: z.array(ToolCallRecord),
    summaries: z.array(SummaryEntry),
    aliases: z.array(z.object({ key: z.string(), originalKey: z.string() })),
    chains: z.array(ChainEntry),
    frontier: z.looseObject({}).nullable().optional(),
    stats: z.looseObject({}).optional(),
  })
  .openapi("StateDelta");
