/**
 * The plain socket request (socket-request.ts) and the transport over it, against a real HTTP server
 * on a Unix socket: the same answers, codes and messages as the fetch path (transport-errors), the
 * timeout and the caller's cancel end the request, a socket nobody listens on says so on `cause`
 * (what makes the local host start its service), a cut answer is never taken for a whole one, and
 * kept-alive connections are reused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNoListener, socketFetch } from "../src/socket-fetch.ts";
import { socketAgent, socketRequest } from "../src/socket-request.ts";
import { CondenseHttpError, createTransport } from "../src/transport.ts";

const dir = mkdtempSync(join(tmpdir(), "condense-sockreq-"));
const socket = join(dir, "s.sock");
let server: Server;
const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string; port: number }[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c: string) => {
    body += c;
  });
  req.on("end", () => {
    seen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body,
      port: (req.socket as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1,
    });
    const json = (status: number, b: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(b));
    };
    if (req.url === "/echo")
      return json(200, {
        method: req.method,
        body: body ? JSON.parse(body) : null,
        auth: req.headers.authorization ?? null,
      });
    if (req.url === "/refused")
      return json(409, { error: { code: "summarizer_not_handed_off", message: "hand it off", requestId: "r" } });
    if (req.url === "/proxy") {
      res.writeHead(503);
      return res.end("<html>bad gateway</html>");
    }
    if (req.url === "/not-json") {
      res.writeHead(200);
      return res.end("not json");
    }
    if (req.url === "/cut") {
      res.writeHead(200, { "content-length": "100" });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 10);
      return;
    }
    if (req.url === "/slow") return; // never answers
    json(404, { error: { code: "not_found", message: "no such path", requestId: "r" } });
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(socket, r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const transport = (timeoutMs = 1000, apiKey?: string) =>
  createTransport({
    baseUrl: "http://condense.local",
    plainRequest: socketRequest(socket),
    timeoutMs,
    ...(apiKey ? { apiKey } : {}),
  });
const failure = async (p: Promise<unknown>) => {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(CondenseHttpError);
  return e as CondenseHttpError;
};

describe("the plain socket request", () => {
  it("sends the method, JSON body and key, and parses the answer", async () => {
    const r = await transport(1000, "k1").request<{ method: string; body: unknown; auth: string }>("POST", "/echo", {
      a: [1, "é"],
    });
    expect(r).toEqual({ method: "POST", body: { a: [1, "é"] }, auth: "Bearer k1" });
    const last = seen.at(-1)!;
    expect(last.headers["content-type"]).toBe("application/json");
    expect(last.headers.host).toBe("condense.local");
    expect(Number(last.headers["content-length"])).toBe(Buffer.byteLength(last.body));
  });

  it("gives the same codes and messages as the fetch path", async () => {
    const t = transport();
    const refused = await failure(t.request("GET", "/refused"));
    expect([refused.status, refused.code, refused.retryable, refused.message]).toEqual([
      409,
      "summarizer_not_handed_off",
      false,
      "GET /refused: 409 hand it off",
    ]);
    const proxy = await failure(t.request("GET", "/proxy"));
    expect([proxy.status, proxy.code, proxy.retryable]).toEqual([503, "unavailable", true]);
    const notJson = await failure(t.request("GET", "/not-json"));
    expect([notJson.status, notJson.code]).toEqual([200, "bad_response"]);
    // the fetch path over the same socket says the same
    const viaFetch = createTransport({ baseUrl: "http://condense.local", fetch: socketFetch(socket), timeoutMs: 1000 });
    const f = await failure(viaFetch.request("GET", "/refused"));
    expect([f.status, f.code, f.message]).toEqual([refused.status, refused.code, refused.message]);
  });

  it("times out, is cancelled, and reports a socket nobody listens on", async () => {
    const slow = await failure(transport(30).request("GET", "/slow"));
    expect([slow.status, slow.code, slow.message]).toEqual([0, "timeout", "GET /slow: timed out after 30 ms"]);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 10);
    const cancelled = await failure(transport(5000).request("GET", "/slow", undefined, stop.signal));
    expect(cancelled.code).toBe("cancelled");
    const gone = socketRequest(join(dir, "nobody.sock"));
    const raw = await gone({ method: "GET", path: "/x", headers: {} }).catch((e: unknown) => e);
    expect(isNoListener(raw)).toBe(true);
    const t = createTransport({ baseUrl: "http://condense.local", plainRequest: gone, timeoutMs: 1000 });
    const unreachable = await failure(t.request("GET", "/x"));
    expect([unreachable.status, unreachable.code, unreachable.retryable]).toEqual([0, "unreachable", true]);
  });

  it("never takes a cut answer for a whole one, and does not call it a missing listener", async () => {
    const raw = await socketRequest(socket)({ method: "GET", path: "/cut", headers: {} }).catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(Error);
    expect(isNoListener(raw)).toBe(false);
    const cut = await failure(transport().request("GET", "/cut"));
    expect(cut.code).toBe("unreachable");
  });

  it("reuses a kept-alive connection for the next request", async () => {
    const agent = socketAgent();
    const req = socketRequest(socket, agent);
    const before = seen.length;
    for (let i = 0; i < 3; i++) expect((await req({ method: "GET", path: "/echo", headers: {} })).status).toBe(200);
    const fds = new Set(seen.slice(before).map((s) => s.port));
    expect(fds.size).toBe(1);
    agent.destroy();
  });
});
