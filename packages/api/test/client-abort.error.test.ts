/**
 * A client that drops its request body halfway is the client's fault (issue 17 item 8): the wide
 * event logs it as a 400 `request_aborted` (not an error-level 500 `internal_error`), the request
 * counter counts it under 400, and no "unhandled error" line pages an operator. Real server on
 * loopback, a raw socket that declares a long body, sends half of it and closes.
 */
import { connect } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantOverHttp } from "./support/http-tenant.ts";
import { loadApiEnv } from "../src/env.ts";
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { startServer, type RunningServer } from "../src/server.ts";

const ADMIN = "test-admin-key-0123456789";

function abortMidBody(url: string, path: string, auth: string): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    socket.on("error", () => {});
    socket.on("connect", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nAuthorization: ${auth}\r\nContent-Length: 200000\r\n\r\n`,
      );
      socket.write(`{"captureId":"c1","batches":[{"turnIndex":0,"timestamp":1,"assistantText":"${"a".repeat(50_000)}`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 150);
    });
  });
}

describe("client aborts are client errors (real server)", () => {
  let server: RunningServer;
  const lines: Record<string, unknown>[] = [];
  let auth = "";
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split("\n")) if (l.trim()) lines.push(JSON.parse(l));
        done();
      },
    });
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        DATABASE_URL: "pglite:",
        CONDENSE_ADMIN_KEY: ADMIN,
        CONDENSE_RATE_LIMIT_PER_SEC: "0",
        LOG_LEVEL: "info",
      }),
      logger: pino({ level: "info" }, sink),
    });
    const { key } = await tenantOverHttp(server.url, ADMIN, { id: "abort", name: "Abort" });
    auth = `Bearer ${key}`;
  });
  afterAll(async () => server?.close());

  it("logs and counts a body cut off mid-way as 400 request_aborted, never as a 500", async () => {
    await abortMidBody(server.url, "/v1/sessions/s-abort/captures", auth);
    let event: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !event; i++) {
      event = lines.find((l) => l.msg === "request" && l.path === "/v1/sessions/s-abort/captures");
      if (!event) await new Promise((r) => setTimeout(r, 50));
    }
    expect(event).toMatchObject({ status: 400, errorCode: "request_aborted", level: 30 });
    expect(lines.filter((l) => l.msg === "unhandled error")).toEqual([]);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /condense_api_requests_total\{method="POST",route="\/v1\/sessions\/:sessionId\/captures",status="400"\} 1/,
    );
    expect(metrics).not.toMatch(/condense_api_requests_total\{[^}]*status="500"\}/);
    // The server is fine afterwards.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
