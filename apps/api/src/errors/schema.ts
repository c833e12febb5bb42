/**
 * The error response shape as an OpenAPI component, and the set of error responses each route lists,
 * so the document states the same vocabulary the handler produces.
 */
import { z } from "@hono/zod-openapi";
import { ErrorCode, type ErrorStatus } from "./codes.ts";

export const ValidationIssue = z
  .object({ path: z.string().openapi({ example: "captures.0.toolCalls.1.resultText" }), message: z.string() })
  .openapi("ValidationIssue");

export const ErrorBody = z
  .object({
    error: z.object({
      code: ErrorCode.openapi({ description: "Machine-readable error code; stable across releases." }),
      message: z.string(),
      requestId: z.string(),
      issues: z.array(ValidationIssue).optional().openapi({ description: "Field-level problems for bad_request." }),
    }),
  })
  .openapi("Error");
export type ErrorBody = z.infer<typeof ErrorBody>;

const DESCRIPTIONS: Partial<Record<ErrorStatus, string>> = {
  400: "The request is malformed or fails validation (see error.issues).",
  401: "Missing or invalid API key.",
  404: "The resource does not exist for this tenant.",
  409: "The request conflicts with stored state.",
  413: "The body, or one result inside it, exceeds the configured size limit.",
  415: "The Content-Type is not application/json.",
  429: "The tenant's rate limit is exhausted; see Retry-After.",
  500: "An unexpected server fault (never caused by input).",
  503: "A dependency (database or queue) is unavailable.",
};

const errorResponse = (status: ErrorStatus) => ({
  description: DESCRIPTIONS[status] ?? "Error",
  content: { "application/json": { schema: ErrorBody } },
});

/** The error responses of an authenticated tenant route; pass extra statuses a route can also answer. */
export function errorResponses(...extra: ErrorStatus[]) {
  const statuses = new Set<ErrorStatus>([400, 401, 404, 429, 500, ...extra]);
  return Object.fromEntries([...statuses].sort().map((s) => [s, errorResponse(s)])) as Record<ErrorStatus, ReturnType<typeof errorResponse>>;
}
