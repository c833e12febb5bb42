/**
 * The single error path: `app.onError`, `app.notFound` and the zod `defaultHook` all answer through
 * `errorResponse`, so every failure has the same body. Only faults that are not the caller's answer 5xx.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Hook } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { ConflictError, NotFoundError } from "@condense/db";
import type { AppEnv } from "../app-env.ts";
import type { ErrorBody } from "@condense/contract";
import { type ApiErrorCode, codeToStatus, statusToCode } from "@condense/contract/vocabulary";
import { ApiError } from "./codes.ts";

export function errorResponse(
  c: Context<AppEnv>,
  code: ApiErrorCode,
  message: string,
  opts: { headers?: Record<string, string>; issues?: { path: string; message: string }[] } = {},
) {
  c.set("errorCode", code);
  const body: ErrorBody = { error: { code, message, requestId: c.get("requestId") ?? "unknown" } };
  if (opts.issues) body.error.issues = opts.issues;
  for (const [k, v] of Object.entries(opts.headers ?? {})) c.header(k, v);
  return c.json(body, codeToStatus[code]);
}

/** `a.b.0.c` paths, with the request part they came from (body, query, path) as the first segment. */
export function zodIssues(error: ZodError, target: string): { path: string; message: string }[] {
  const prefix = target === "json" ? "body" : target === "param" ? "path" : target;
  return error.issues.slice(0, 20).map((i) => ({
    path: [prefix, ...i.path.map((p) => String(p))].join("."),
    message: i.message,
  }));
}

export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result, c) => {
  if (result.success) return;
  const issues = zodIssues(result.error as ZodError, result.target);
  const first = issues[0];
  return errorResponse(c, "bad_request", first ? `${first.path}: ${first.message}` : "invalid request", { issues });
};

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) {
    return errorResponse(c, err.code, err.message, { headers: err.headers });
  }
  // The database's typed failures: a row that is gone answers 404, a contradicting write 409.
  if (err instanceof NotFoundError) return errorResponse(c, "not_found", err.message);
  if (err instanceof ConflictError) return errorResponse(c, "conflict", err.message);
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 400 && /json/i.test(err.message))
      return errorResponse(c, "invalid_json", "the request body is not valid JSON");
    const code = statusToCode(status);
    const message =
      status === 413
        ? "the request body exceeds the configured size limit"
        : status === 415
          ? "the Content-Type must be application/json"
          : err.message || code;
    return errorResponse(c, code, message);
  }
  if (isClientAbort(err, c)) {
    // The caller hung up mid-body: its fault, and nobody is left to read the answer. A 4xx keeps it
    // out of the 5xx rate an operator is paged on; the wide event still records it, with its own code.
    return errorResponse(
      c,
      "request_aborted",
      "the client closed the connection before the request body was complete; send the request again",
    );
  }
  c.get("log")?.error({ err }, "unhandled error");
  return errorResponse(c, "internal_error", "an unexpected error occurred; the request id identifies it in the logs");
}

export function onNotFound(c: Context<AppEnv>) {
  return errorResponse(c, "not_found", `no route for ${c.req.method} ${c.req.path}`);
}

/**
 * A request body cut off by its client: Node's HTTP server fails the body stream with `aborted`
 * (ECONNRESET) when the socket closes before Content-Length bytes arrived; the request's own signal
 * is aborted too. Looked for on the error and its causes (a body reader may wrap it).
 */
export function isClientAbort(err: unknown, c?: Context<AppEnv>): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; message?: unknown; name?: unknown };
    if (x.code === "ECONNRESET" || x.code === "ERR_STREAM_PREMATURE_CLOSE" || x.message === "aborted") return true;
  }
  return (err as { name?: unknown })?.name === "AbortError" && c?.req.raw.signal?.aborted === true;
}
