/**
 * The API's one error vocabulary: the codes a client, a log line and the OpenAPI document all share,
 * and the HTTP status each one answers with. Every error response is `{ error: { code, message, requestId } }`.
 */
import { z } from "@hono/zod-openapi";

export const ErrorCode = z.enum([
  "bad_request",
  "invalid_json",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  "unavailable",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const codeToStatus = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

export type ErrorStatus = (typeof codeToStatus)[ErrorCode];

/** Reverse map for errors raised by Hono itself (HTTPException carries only a status). */
export function statusToCode(status: number): ErrorCode {
  switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 413: return "payload_too_large";
    case 415: return "unsupported_media_type";
    case 429: return "rate_limited";
    case 503: return "unavailable";
    default: return status >= 400 && status < 500 ? "bad_request" : "internal_error";
  }
}

/** Thrown by routes and middleware; `app.onError` turns it into the shared shape. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  /** Extra response headers (e.g. Retry-After for rate_limited). */
  readonly headers: Record<string, string>;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, opts: { headers?: Record<string, string>; details?: unknown; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = codeToStatus[code];
    this.headers = opts.headers ?? {};
    this.details = opts.details;
  }
}
