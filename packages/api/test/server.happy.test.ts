import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantOverHttp } from "./support/http-tenant.ts";
import { loadApiEnv } from "../src/env.ts";
import { createLogger } from "../src/observability/logger.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { batch, call, capturesBody, commitAllPending } from "@condense/test-support/flush-plan";

const ADMIN = "server-admin-key-0123456789";

async function readEvents(res: Response, want: number, timeoutMs = 5000): Promise<string[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const events: string[] = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < want && Date.now() < deadline) {
    const { value, done } = await Promise.race([
      reader.read(),
      new Promise<{ value: undefined; done: true }>((r) =>
        setTimeout(() => r({ value: undefined, done: true }), deadline - Date.now()),
      ),
    ]);
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      events.push(buf.slice(0, i));
      buf = buf.slice(i + 2);
    }
  }
  reader.releaseLock();
  return events;
}

describe("startServer on loopback (embedded: PGlite + in-process queue)", () => {
  let server: RunningServer;
  let headers: Record<string, string>;
  const logLines: Record<string, unknown>[] = [];
  let plaintextKey = "";

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split("\n")) if (l) logLines.push(JSON.parse(l));
        cb();
      },
    });
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        DATABASE_URL: "pglite:",
        CONDENSE_ADMIN_KEY: ADMIN,
        CONDENSE_SSE_HEARTBEAT_MS: "200",
        CONDENSE_SSE_POLL_MS: "50",
        CONDENSE_SHUTDOWN_GRACE_MS: "2000",
      }),
      logger: createLogger("info", sink),
    });
    ({ key: plaintextKey, headers } = await tenantOverHttp(server.url, ADMIN, { id: "acme", name: "Acme" }));
  });
  afterAll(async () => server?.close());

  it("is live and ready, and serves captures, flushes and deltas over HTTP", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      status: string;
      checks: Record<string, { ok: boolean }>;
    };
    expect(ready).toMatchObject({ status: "ready", checks: { database: { ok: true }, queue: { ok: true } } });
    const cap = await fetch(`${server.url}/v1/sessions/live/captures`, {
      method: "POST",
      headers,
      body: JSON.stringify(capturesBody("c1", [batch(0, [call("a", 1)])])),
    });
    expect(cap.status).toBe(200);
    const flush = await fetch(`${server.url}/v1/sessions/live/flushes`, {
      method: "POST",
      headers,
      body: JSON.stringify({ trigger: "message-end" }),
    });
    expect(flush.status).toBe(202);
    expect((await server.jobQueue.counts()).waiting).toBe(1);
  });

  it("writes one wide event per request with tenant, session, route, status and duration, and never the key", async () => {
    await fetch(`${server.url}/v1/sessions/live/state?since=0`, { headers: { ...headers, "x-request-id": "wide-1" } });
    const line = logLines.find((l) => l.requestId === "wide-1" && l.msg === "request");
    expect(line).toMatchObject({
      method: "GET",
      route: "/v1/sessions/:sessionId/state",
      status: 200,
      tenant: "acme",
      session: "live",
      durationMs: expect.any(Number),
    });
    expect(logLines.filter((l) => l.requestId === "wide-1")).toHaveLength(1);
    expect(JSON.stringify(logLines)).not.toContain(plaintextKey);
  });

  it("announces new versions over SSE (first the current one, then each commit), with heartbeats", async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${server.url}/v1/sessions/live/events`, { headers, signal: ctrl.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const first = await readEvents(res, 1);
    expect(first[0]).toContain("event: version");
    expect(first[0]).toContain('"version":0');
    const version = await commitAllPending(server.db.db, { tenantId: "acme", sessionId: "live" });
    const next = await readEvents(res, 2, 5000);
    const versionEvent = next.find((e) => e.includes("event: version"));
    expect(versionEvent).toContain(`id: ${version}`);
    expect(next.some((e) => e.startsWith(": heartbeat"))).toBe(true);
    ctrl.abort();
  });

  it("a process-local publish reaches open streams at once", async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${server.url}/v1/sessions/live/events?since=1000`, { headers, signal: ctrl.signal });
    await server.hub.publish({ tenantId: "acme", sessionId: "live", version: 1001 });
    const events = await readEvents(res, 1);
    expect(events.find((e) => e.includes("event: version"))).toContain("id: 1001");
    ctrl.abort();
  });

  it("serves /metrics from its own registry", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain("condense_api_requests_total");
    expect(text).toMatch(/condense_api_captures_ingested_total 1/);
    expect(text).toContain("condense_api_queue_waiting 1");
    expect(text).toContain("condense_api_process_cpu_seconds_total");
  });
});

describe("graceful shutdown", () => {
  it("ends open SSE streams, drains in-flight requests and closes within the grace period", async () => {
    const server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        DATABASE_URL: "pglite:",
        CONDENSE_ADMIN_KEY: ADMIN,
        CONDENSE_SSE_HEARTBEAT_MS: "60000",
        CONDENSE_SHUTDOWN_GRACE_MS: "3000",
        LOG_LEVEL: "silent",
      }),
    });
    const { headers: h } = await tenantOverHttp(server.url, ADMIN, { id: "acme", name: "Acme" });
    await fetch(`${server.url}/v1/sessions/s/captures`, {
      method: "POST",
      headers: h,
      body: JSON.stringify(capturesBody("c", [batch(0, [call("a", 1)])])),
    });
    const streams = await Promise.all([1, 2, 3].map(() => fetch(`${server.url}/v1/sessions/s/events`, { headers: h })));
    for (const s of streams) expect((await readEvents(s, 1))[0]).toContain("event: version");
    expect(server.hub.openStreams).toBe(3);

    const started = Date.now();
    const closing = server.close();
    // Each stream ends cleanly (the reader sees done), well before the grace period.
    for (const s of streams) {
      const reader = s.body!.getReader();
      let done = false;
      while (!done) done = (await reader.read()).done;
    }
    await closing;
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it("force-closes a connection that does not finish within the grace period", async () => {
    const server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({ PORT: "0", DATABASE_URL: "pglite:", CONDENSE_SHUTDOWN_GRACE_MS: "300", LOG_LEVEL: "silent" }),
    });
    // A request whose body never finishes keeps its connection busy.
    const { connect } = await import("node:net");
    const u = new URL(server.url);
    const socket = connect(Number(u.port), u.hostname);
    socket.resume(); // a paused socket would never see the server close it
    await new Promise<void>((r) => socket.on("connect", () => r()));
    socket.write(
      `POST /v1/sessions/s/captures HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    socket.on("error", () => {});
    const closedSocket = new Promise<void>((r) => socket.on("close", () => r()));
    const started = Date.now();
    await server.close();
    await closedSocket;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
