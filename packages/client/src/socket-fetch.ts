/**
 * A fetch over a Unix socket (node:http with `socketPath`), for the per-user local service. Global
 * fetch cannot dial a socket without undici's Agent, and the client takes no dependencies. The
 * response body streams (the version watch reads SSE through it), and an abort signal ends the
 * request and the stream. Connection failures reject with the socket error's code on `cause`
 * (ENOENT, ECONNREFUSED), which the local-service connector reads to start a service.
 *
 * Connections are kept alive and reused (one agent per socket path): a request per agent step no
 * longer pays a connect and the service's per-connection setup. An idle pooled connection is unref'd
 * by node, so it never keeps a finished process alive, and is closed after FREE_SOCKET_MS, below the
 * service's own keep-alive timeout (node's 5 s default), so a reused connection is never one the
 * service is closing. JSON requests take the lighter socketRequest (socket-request.ts); this serves
 * the SSE stream and callers that want a web Response.
 */
import { type Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { socketAgent } from "./socket-request.ts";
import type { FetchLike } from "./transport.ts";

/** `agent`: shared with socketRequest (socket-request.ts), so both reuse one pool of connections. */
export function socketFetch(socketPath: string, agent: Agent = socketAgent()): FetchLike {
  return (input, init) => {
    const req0 = input instanceof Request ? input : null;
    const url = new URL(req0 ? req0.url : String(input));
    const method = init?.method ?? req0?.method ?? "GET";
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? req0?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") {
      return Promise.reject(new TypeError("socketFetch: only string bodies are supported"));
    }
    if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason ?? new Error("aborted"));
        return;
      }
      const req = httpRequest({
        socketPath,
        agent,
        path: url.pathname + url.search,
        method,
        headers: { host: "condense.local", ...headers },
      });
      const onAbort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (err) => {
        signal?.removeEventListener("abort", onAbort);
        reject(new Error(`${socketPath}: ${err.message}`, { cause: err }));
      });
      req.on("response", (res: IncomingMessage) => {
        res.on("close", () => signal?.removeEventListener("abort", onAbort));
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (Array.isArray(v)) for (const x of v) out.append(k, x);
          else if (v !== undefined) out.set(k, v);
        }
        const status = res.statusCode ?? 500;
        const noBody = status === 204 || status === 304 || method === "HEAD";
        if (noBody) res.resume();
        resolve(
          new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status,
            statusText: res.statusMessage ?? "",
            headers: out,
          }),
        );
      });
      req.end(body ?? undefined);
    });
  };
}

/** True when the error means no service is listening on the socket (absent or stale). */
export function isNoListener(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } } | null)?.cause?.code;
  return code === "ENOENT" || code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EPIPE";
}
