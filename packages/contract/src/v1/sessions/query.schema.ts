/** POST /v1/sessions/{sessionId}/query: context_tree_query (CAP-QUERY) by tN, raw id or occurrence key. */
import { z } from "@hono/zod-openapi";
import { Identifier } from "../common.schema.ts";

export const QueryBody = z
  .object({
    toolCallIds: z
      .array(Identifier(600))
      .min(1)
      .max(100)
      .openapi({
        description:
          "What to recover (1 to 100): short refs (`t12`), raw tool-call ids, or occurrence keys (`id@resultTimestamp`).",
        example: ["t12", "toolu_01A@1718000000000"],
      }),
    offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).openapi({
      description:
        "Character offset (UTF-16 code units) into each body; a cut page names the offset of the next one (`nextOffset`).",
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(2000)
      .openapi({ description: "Lines per page (default 2000)." }),
    maxBytes: z
      .number()
      .int()
      .min(1024)
      .max(4 * 1024 * 1024)
      .default(50 * 1024)
      .openapi({ description: "UTF-8 bytes per page (default 51200)." }),
  })
  .openapi("QueryRequest", { example: { toolCallIds: ["t12", "toolu_01A@1718000000000"] } });

export const QueryHitSchema = z
  .object({
    input: z.string().describe("The asked id this hit answers.").openapi({ example: "t12" }),
    label: z
      .string()
      .describe("How the hit is labelled in the formatted text (ref, id or key).")
      .openapi({ example: "t12" }),
    key: z
      .string()
      .describe("The record's occurrence key (`id@resultTimestamp`, or a bare legacy id).")
      .openapi({ example: "toolu_01A@1718000000000" }),
    shortRef: z
      .string()
      .optional()
      .describe("The record's short ref (`tN`), when it has one.")
      .openapi({ example: "t12" }),
    toolName: z.string().describe("The tool that produced the output.").openapi({ example: "read" }),
    args: z
      .record(z.string(), z.unknown())
      .describe("The call's arguments.")
      .openapi({ example: { path: "src/app.ts" } }),
    isError: z.boolean().describe("Whether the tool reported an error."),
    turnIndex: z.number().describe("The assistant turn of the call.").openapi({ example: 3 }),
    resultTimestamp: z
      .number()
      .optional()
      .describe("The result's timestamp (epoch ms), part of the occurrence key.")
      .openapi({ example: 1718000000000 }),
    legacy: z
      .boolean()
      .describe("true for a record captured under a bare id (no result timestamp) among several occurrences."),
    /** The page of the body from `offset` (concatenating the pages in order gives the original). */
    resultText: z
      .string()
      .describe(
        "The page of the original output from `offset`; concatenating the pages in order gives the original byte for byte.",
      )
      .openapi({ example: "export const app = new Hono();" }),
    stored: z.boolean().describe("Whether the output was stored out of line (it was oversized)."),
    offset: z.number().int().describe("Character offset of this page in the body."),
    /** Offset of the next page, or null when this page reaches the end of the body. */
    nextOffset: z
      .number()
      .int()
      .nullable()
      .describe("Offset of the next page; null when this page reaches the end of the body."),
    /** Length of the whole body in UTF-16 code units. */
    totalChars: z.number().int().describe("Length of the whole body in UTF-16 code units."),
  })
  .openapi("QueryHit");

export const QueryResponse = z
  .object({
    /** The tool-result text, formatted as the context_tree_query tool shows it. */
    text: z.string().describe("The tool-result text, formatted as the context_tree_query tool shows it to the model."),
    hits: z.array(QueryHitSchema).describe("Every record that matched, in request order."),
    notFound: z.array(z.string()).describe("Asked ids that matched nothing.").openapi({ example: [] }),
  })
  .openapi("QueryResponse");
