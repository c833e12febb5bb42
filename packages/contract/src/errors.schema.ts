/**
 * The error response shape as OpenAPI components: `{ error: { code, message, requestId, issues? } }`,
 * with the API's codes from the one vocabulary (vocabulary/error-codes.ts).
 */
import { z } from "@hono/zod-openapi";
import { API_ERROR_CODES } from "./vocabulary/error-codes.ts";

/** The codes the API answers with (the client's transport codes never come from the service). */
export const ApiErrorCodeSchema = z.enum(API_ERROR_CODES);

export const ValidationIssue = z
  .object({
    path: z.string().openapi({
      description: "Dotted path of the offending field in the request.",
      example: "batches.0.toolCalls.1.resultText",
    }),
    message: z
      .string()
      .describe("What is wrong with it.")
      .openapi({ example: "contains a NUL character, which cannot be stored" }),
  })
  .openapi("ValidationIssue");

export const ErrorBody = z
  .object({
    error: z
      .object({
        code: ApiErrorCodeSchema.openapi({ description: "Machine-readable error code; stable across releases." }),
        message: z
          .string()
          .describe("What went wrong and what to do next, for a person.")
          .openapi({ example: "a valid API key is required: Authorization: Bearer <key>" }),
        requestId: z
          .string()
          .describe("The request's id (the x-request-id header); quote it when reporting a problem.")
          .openapi({ example: "0f8e2c1a-3b4d-4e5f-8a9b-1c2d3e4f5a6b" }),
        issues: z.array(ValidationIssue).optional().openapi({ description: "Field-level problems for bad_request." }),
      })
      .describe("The error."),
  })
  .openapi("Error");
export type ErrorBody = z.infer<typeof ErrorBody>;
