/**
 * The set of error responses each route lists in the OpenAPI document, over the contract's error body,
 * so the document states the same vocabulary the handler produces.
 */
import { ErrorBody, type ErrorStatus } from "@condense/contract";

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
  return Object.fromEntries([...statuses].sort().map((s) => [s, errorResponse(s)])) as Record<
    ErrorStatus,
    ReturnType<typeof errorResponse>
  >;
}
