/**
 * The HTTP transport: one `request()` over a fetch function, with the tenant key, JSON bodies, a
 * per-request timeout and one error type that says whether a retry can help. The fetch function is
 * the global fetch for a remote service, or the API app's own `fetch` in embedded mode, so the same
 * HTTP contract is exercised either way. Every error carries a code of the contract's one vocabulary:
 * the API's own code when it answered with its error body, the status's code otherwise, and a
 * transport code (unreachable, timeout, cancelled, bad_response) when no usable answer arrived.
 * A host may also give a plain request function (`request`, the local service's socket-request.ts):
 * JSON requests then skip web Request/Response objects entirely, with the same timeout, codes and
 * messages; streams always go through `fetch`.
 */
import { type ErrorCode, isErrorCode, statusToCode } from "@condense/contract/vocabulary";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One whole request and its whole answer as text; `path` includes the query. Rejects when no answer arrived. */
export type PlainRequest = (
  req: { method: string; path: string; headers: Record<string, string>; body?: string },
  signal?: AbortSignal,
) => Promise<{ status: number; text: string }>;

export interface TransportOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8787` (embedded: any origin, the app ignores it). */
  baseUrl: string;
  apiKey?: string;
  fetch?: FetchLike;
  /** JSON requests go through this instead of `fetch` when given (paths relative to the API's root). */
  plainRequest?: PlainRequest;
  /** Per request; the SSE stream has none. */
  timeoutMs?: number;
}

/** A failed request: the API's error body (`{ error: { code, message, requestId } }`) or a transport failure (status 0). */
export class CondenseHttpError extends Error {
  constructor(
    /** The HTTP status; 0 when no answer arrived. */
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** True for network failures, timeouts, 408/429/5xx: the same request may succeed later. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "CondenseHttpError";
  }
}

export interface Transport {
  request<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
  /** A raw streaming GET (SSE); the caller owns the response body. */
  stream(path: string, signal: AbortSignal): Promise<Response>;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

export function createTransport(options: TransportOptions): Transport {
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, "");
  // The base URL's own path (a fleet behind a prefix): plain requests carry the path alone.
  const basePath = options.plainRequest ? new URL(base).pathname.replace(/\/+$/, "") : "";
  const timeoutMs = options.timeoutMs ?? 10_000;
  const headers = (json: boolean): Record<string, string> => ({
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...(json ? { "content-type": "application/json" } : {}),
    accept: "application/json",
  });

  async function request<T>(
    method: "GET" | "POST" | "PUT",
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    // One controller per request: the caller's signal and a plain (unref'd) timer both abort it.
    const control = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      control.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref?.();
    const onAbort = () => control.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    let status: number;
    let text: string;
    try {
      const init = {
        method,
        headers: headers(body !== undefined),
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      };
      if (options.plainRequest) {
        ({ status, text } = await options.plainRequest({ ...init, path: basePath + path }, control.signal));
      } else {
        const res = await fetchFn(base + path, { ...init, signal: control.signal });
        status = res.status;
        text = await res.text().catch(() => "");
      }
    } catch (err) {
      const code: ErrorCode = timedOut ? "timeout" : signal?.aborted ? "cancelled" : "unreachable";
      const why =
        code === "timeout" ? `timed out after ${timeoutMs} ms` : err instanceof Error ? err.message : String(err);
      throw new CondenseHttpError(0, code, `${method} ${path}: ${why}`, true);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    const res = { status, ok: status >= 200 && status < 300 };
    if (!res.ok) {
      let code: ErrorCode = statusToCode(res.status);
      let message = text.slice(0, 300);
      try {
        const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: string } };
        if (isErrorCode(parsed.error?.code)) code = parsed.error.code;
        if (parsed.error?.message) message = parsed.error.message;
      } catch {
        /* not the API's error shape; keep the raw text */
      }
      throw new CondenseHttpError(
        res.status,
        code,
        `${method} ${path}: ${res.status} ${message}`,
        RETRYABLE_STATUS.has(res.status),
      );
    }
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch {
      throw new CondenseHttpError(res.status, "bad_response", `${method} ${path}: response is not JSON`, true);
    }
  }

  async function stream(path: string, signal: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetchFn(base + path, {
        method: "GET",
        headers: { ...headers(false), accept: "text/event-stream" },
        signal,
      });
    } catch (err) {
      throw new CondenseHttpError(
        0,
        signal.aborted ? "cancelled" : "unreachable",
        `GET ${path}: ${err instanceof Error ? err.message : String(err)}`,
        true,
      );
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new CondenseHttpError(
        res.status,
        res.ok ? "bad_response" : statusToCode(res.status),
        `GET ${path}: ${res.status}`,
        RETRYABLE_STATUS.has(res.status) || res.status === 404,
      );
    }
    return res;
  }

  return { request, stream };
}
