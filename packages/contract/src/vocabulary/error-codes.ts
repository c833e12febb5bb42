/**
 * The one error vocabulary: every code an API response, a worker log line or metric, and the client's
 * errors carry. No zod here: the agent-side client imports this module at run time.
 *
 * - API codes are what the service answers with, in `{ error: { code, message, requestId } }`, each
 *   with the HTTP status it answers with.
 * - Transport codes are what the client reports when no usable answer arrived: the service could not be
 *   reached, the request timed out or was cancelled, or the answer was unusable. An error status
 *   without the API's body gets the status's code (`statusToCode`).
 */

export const API_ERROR_CODES = [
  "bad_request",
  "invalid_json",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "summarizer_not_handed_off",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  "unavailable",
  "body_incomplete",
  "request_aborted",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export const TRANSPORT_ERROR_CODES = [
  /** No connection: nothing listens at the address, the socket closed, DNS failed. */
  "unreachable",
  /** The request got no answer within the client's timeout. */
  "timeout",
  /** The caller cancelled the request (its AbortSignal fired) or the work was aborted. */
  "cancelled",
  /** An answer arrived that the client cannot use: a success whose body is not JSON, a stream without a body. */
  "bad_response",
] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

export type ErrorCode = ApiErrorCode | TransportErrorCode;
export const ERROR_CODES: readonly ErrorCode[] = [...API_ERROR_CODES, ...TRANSPORT_ERROR_CODES];

export const codeToStatus = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  summarizer_not_handed_off: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  /** A capture refers to an out-of-line body whose parts are missing or do not match it: upload them again. */
  body_incomplete: 409,
  /** The client closed the connection before its request body was read in full: the client's fault, not ours. */
  request_aborted: 400,
} as const satisfies Record<ApiErrorCode, number>;

export type ErrorStatus = (typeof codeToStatus)[ApiErrorCode];

/** The API code of an HTTP status that came without the API's error body (Hono's HTTPException, a proxy). */
export function statusToCode(status: number): ApiErrorCode {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 409:
      return "conflict";
    case 413:
      return "payload_too_large";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    default:
      return status >= 400 && status < 500 ? "bad_request" : "internal_error";
  }
}

const KNOWN = new Set<string>(ERROR_CODES);

export function isErrorCode(x: unknown): x is ErrorCode {
  return typeof x === "string" && KNOWN.has(x);
}

/**
 * The vocabulary's code for a thrown error, for a log line or a metric label: the error's own `code`
 * when it is one of ours (ApiError, the client's CondenseHttpError, db's typed errors), `timeout` and
 * `cancelled` for the platform's TimeoutError and AbortError, `internal_error` for anything else.
 */
export function errorCodeOf(err: unknown): ErrorCode {
  const code = (err as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) return code;
  const name = err instanceof Error ? err.name : undefined;
  if (name === "TimeoutError") return "timeout";
  if (name === "AbortError") return "cancelled";
  return "internal_error";
}
