/**
 * The API's error: a code from the contract's one vocabulary (@condense/contract) and the HTTP status
 * that code answers with. Every error response is `{ error: { code, message, requestId } }`.
 */
import { type ApiErrorCode, type ErrorStatus, codeToStatus } from "@condense/contract/vocabulary";

/** Thrown by routes and middleware; `app.onError` turns it into the shared shape. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: ErrorStatus;
  /** Extra response headers (e.g. Retry-After for rate_limited). */
  readonly headers: Record<string, string>;
  readonly details?: unknown;

  constructor(
    code: ApiErrorCode,
    message: string,
    opts: { headers?: Record<string, string>; details?: unknown; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = codeToStatus[code];
    this.headers = opts.headers ?? {};
    this.details = opts.details;
  }
}
