/**
 * POST /v1/sessions/{sessionId}/captures: finished tool-call batches (core's CapturedBatch) under one
 * capture id. There is no content-hash field: the service hashes the stored text itself (dedup and
 * identity never rest on a client's word), and an unknown field such as a client `contentHash` is
 * dropped by the schema.
 */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableRecord, StorableText, Timestamp } from "../common.schema.ts";

export const CapturedToolCallSchema = z
  .object({
    toolCallId: Identifier(512)
      .describe("The provider's id of the tool call (the `id` of the assistant's toolCall block).")
      .openapi({ example: "toolu_01A" }),
    toolName: Identifier(200).describe("The tool's name as the agent called it.").openapi({ example: "read" }),
    args: StorableRecord.describe("The call's arguments as the agent sent them (JSON object).").openapi({
      example: { path: "src/app.ts" },
    }),
    resultText: StorableText.openapi({
      description: "Joined text parts; `(no result)` when none exists.",
      example: "export const app = new Hono();",
    }),
    isError: z.boolean().describe("Whether the tool reported an error for this call.").openapi({ example: false }),
    resultTimestamp: Timestamp.optional().openapi({
      description: "Makes the occurrence key `toolCallId@resultTimestamp`; absent = legacy bare id.",
      example: 1718000000000,
    }),
    body: z
      .object({
        parts: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .describe("How many parts were uploaded (POST /bodies, numbered 0..parts-1)."),
        chars: z
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1)
          .describe("Length of the whole body in UTF-16 code units."),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, "must be the lowercase hex SHA-256 of the body's UTF-8 bytes")
          .describe("Lowercase hex SHA-256 of the whole body's UTF-8 bytes."),
      })
      .optional()
      .openapi({
        description:
          "The result travelled out of line (POST /bodies, parts 0..parts-1); `resultText` is then empty. The service verifies the parts against `chars` and `sha256`.",
      }),
  })
  .refine((c) => c.body === undefined || c.resultText === "", {
    message: "resultText must be empty when the body travels out of line",
    path: ["resultText"],
  })
  .openapi("CapturedToolCall");

export const CapturedBatchSchema = z
  .object({
    turnIndex: z
      .number()
      .int()
      .min(-1)
      .max(10_000_000)
      .describe("The assistant turn these calls belong to (0-based; -1 before the first turn).")
      .openapi({ example: 3 }),
    timestamp: Timestamp.describe("When the batch was captured (epoch milliseconds).").openapi({
      example: 1718000000100,
    }),
    assistantText: StorableText.describe(
      "The assistant's text in the turn that made these calls (context for the summarizer); may be empty.",
    ).openapi({ example: "Let me read the app entry point." }),
    toolCalls: z
      .array(CapturedToolCallSchema)
      .min(1)
      .max(1000)
      .describe("The finished calls of the turn, each with its result (1 to 1000)."),
    userTurnGroup: z
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .optional()
      .describe("Which user message the turn answers (groups batches for `batchMode` grouping); optional."),
  })
  .openapi("CapturedBatch");

export const CapturesBody = z
  .object({
    captureId: Identifier(200).openapi({
      description:
        "Client id of this POST; a retry must repeat it. Together with each call's occurrence key it makes the POST idempotent.",
    }),
    batches: z.array(CapturedBatchSchema).min(1).max(1000).describe("One batch per assistant turn (1 to 1000)."),
  })
  .openapi("CapturesRequest", {
    example: {
      captureId: "cap-0001",
      batches: [
        {
          turnIndex: 3,
          timestamp: 1718000000100,
          assistantText: "Let me read the app entry point.",
          toolCalls: [
            {
              toolCallId: "toolu_01A",
              toolName: "read",
              args: { path: "src/app.ts" },
              resultText: "export const app = new Hono();",
              isError: false,
              resultTimestamp: 1718000000000,
            },
          ],
        },
      ],
    },
  });
export type CapturesBody = z.infer<typeof CapturesBody>;

export const CapturesResponse = z
  .object({
    captureId: z.string().describe("The request's captureId, echoed.").openapi({ example: "cap-0001" }),
    /** Calls newly stored by this request. */
    accepted: z.number().int().describe("Calls newly stored by this request.").openapi({ example: 1 }),
    /** Calls already stored (a retry, or an occurrence captured earlier). */
    duplicates: z
      .number()
      .int()
      .describe("Calls already stored (a retry, or an occurrence captured earlier).")
      .openapi({ example: 0 }),
    /** The highest capture sequence number of this session after the commit (a flush cursor). */
    maxSeq: z
      .number()
      .int()
      .describe(
        "The highest capture sequence number of the session after this request (a flush includes captures up to its cursor).",
      )
      .openapi({ example: 42 }),
  })
  .openapi("CapturesResponse");
