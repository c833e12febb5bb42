/**
 * A plain request over the local service's Unix socket: node:http with `socketPath` and a keep-alive
 * agent, the whole body read as text, no web Request/Response, Headers or stream wrapping. The
 * transport sends every JSON request of the local service through this (transport.ts `request`); the
 * version watch's SSE stream keeps using socketFetch. An abort signal ends the request at any point,
 * and a failure before the whole answer arrived rejects with the socket error's code on `cause`
 * (ENOENT, ECONNREFUSED, ECONNRESET), as socketFetch does.
 */
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import type { PlainRequest } from "./transport.ts";

/** Idle pooled connections close after this (below the service's 5 s keep-alive, see socket-fetch.ts). */
const FREE_SOCKET_MS = 4_000;

export function socketAgent(): Agent {
  return new Agent({ keepAlive: true, timeout: FREE_SOCKET_MS });
}

export function socketRequest(socketPath: string, agent: Agent = socketAgent()): PlainRequest {
  return (req, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason ?? new Error("aborted"));
        return;
      }
      const headers: Record<string, string> = { host: "condense.local", ...req.headers };
      if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body));
      const r = httpRequest({ socketPath, agent, path: req.path, method: req.method, headers });
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        reject(new Error(`${socketPath}: ${err.message}`, { cause: err }));
      };
      const onAbort = () => r.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      r.on("error", fail);
      r.on("response", (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        // After the answer began, a failure is a cut answer, never a missing listener (no restart and
        // resend of a request the service may have handled): the transport reports it, the outbox retries.
        const cut = () => fail(new Error("the connection closed before the answer ended"));
        res.on("error", cut);
        res.on("end", () => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener("abort", onAbort);
          resolve({ status: res.statusCode ?? 500, text });
        });
        res.on("close", () => {
          if (!res.complete) cut();
        });
      });
      r.end(req.body);
    });
}
