/** POST /v1/sessions/{sessionId}/query: context_tree_query (CAP-QUERY) by tN, raw id or occurrence key. */
import { z } from "@hono/zod-openapi";
import { Identifier } from "../../common.schema.ts";

export const QueryBody = z
  .object({
    toolCallIds: z.array(Identifier(600)).min(1).max(100).openapi({ example: ["t12", "toolu_01A@1718000000000"] }),
  })
  .openapi("QueryRequest");

export const QueryHitSchema = z
  .object({
    input: z.string(),
    label: z.string(),
    key: z.string(),
    shortRef: z.string().optional(),
    toolName: z.string(),
    args: z.record(z.string(), z.unknown()),
    isError: z.boolean(),
    turnIndex: z.number(),
    resultTimestamp: z.number().optional(),
    legacy: z.boolean(),
    /** The full body (stored large bodies are read back in full). */
    resultText: z.string(),
    stored: z.boolean(),
  })
  .openapi("QueryHit");

export const QueryResponse = z
  .object({
    /** The tool-result text, formatted as the context_tree_query tool shows it. */
    text: z.string(),
    hits: z.array(QueryHitSchema),
    notFound: z.array(z.string()),
  })
  .openapi("QueryResponse");
