/** POST /v1/sessions/{sessionId}/captures: finished tool-call batches (core's CapturedBatch) under one capture id. */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableRecord, StorableText, Timestamp } from "../../common.schema.ts";

export const CapturedToolCallSchema = z
  .object({
    toolCallId: Identifier(512),
    toolName: Identifier(200),
    args: StorableRecord,
    resultText: StorableText.openapi({ description: "Joined text parts; `(no result)` when none exists." }),
    isError: z.boolean(),
    resultTimestamp: Timestamp.optional().openapi({ description: "Makes the occurrence key `toolCallId@resultTimestamp`; absent = legacy bare id." }),
    contentHash: z.string().regex(/^[A-Za-z0-9:_-]{1,128}$/).optional(),
  })
  .openapi("CapturedToolCall");

export const CapturedBatchSchema = z
  .object({
    turnIndex: z.number().int().min(-1).max(10_000_000),
    timestamp: Timestamp,
    assistantText: StorableText,
    toolCalls: z.array(CapturedToolCallSchema).min(1).max(1000),
    userTurnGroup: z.number().int().min(0).max(10_000_000).optional(),
  })
  .openapi("CapturedBatch");

export const CapturesBody = z
  .object({
    captureId: Identifier(200).openapi({ description: "Client id of this POST; a retry must repeat it. Together with each call's occurrence key it makes the POST idempotent." }),
    batches: z.array(CapturedBatchSchema).min(1).max(1000),
  })
  .openapi("CapturesRequest");
export type CapturesBody = z.infer<typeof CapturesBody>;

export const CapturesResponse = z
  .object({
    captureId: z.string(),
    /** Calls newly stored by this request. */
    accepted: z.number().int(),
    /** Calls already stored (a retry, or an occurrence captured earlier). */
    duplicates: z.number().int(),
    /** The highest capture sequence number of this session after the commit (a flush cursor). */
    maxSeq: z.number().int(),
  })
  .openapi("CapturesResponse");
