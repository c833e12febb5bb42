import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantOverHttp } from "./support/http-tenant.ts";
import { API_ERROR_CODES } from "@condense/contract";
import { loadApiEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { malformedCorpus, validCaptures, type MalformedCase } from "./support/malformed-corpus.ts";
import { rawRequest } from "./support/raw-http.ts";

const ADMIN = "corpus-admin-key-0123456789";
const LIMITS = { maxRequestBytes: 256 * 1024, maxResultBytes: 32 * 1024 };
const CODES = new Set<string>(API_ERROR_CODES);

interface Outcome {
  name: string;
  status: number;
  code?: string;
  requestId?: string;
}

describe("malformed-input corpus: every case answers 4xx with a code, none 5xx (real server on loopback)", () => {
  let server: RunningServer;
  let tenantAuth = "";
  const corpus = malformedCorpus(LIMITS);

  beforeAll(async () => {
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        DATABASE_URL: "pglite:",
        CONDENSE_ADMIN_KEY: ADMIN,
        CONDENSE_MAX_REQUEST_BYTES: String(LIMITS.maxRequestBytes),
        CONDENSE_MAX_RESULT_BYTES: String(LIMITS.maxResultBytes),
        CONDENSE_RATE_LIMIT_PER_SEC: "0",
        LOG_LEVEL: "silent",
      }),
    });
    const { key } = await tenantOverHttp(server.url, ADMIN, { id: "corpus", name: "Corpus" });
    tenantAuth = `Bearer ${key}`;
    // The session exists, so the routes get past the 404 and the validators are what answers.
    const seeded = await fetch(`${server.url}/v1/sessions/s-corpus/captures`, {
      method: "POST",
      headers: { authorization: tenantAuth, "content-type": "application/json" },
      body: JSON.stringify(validCaptures()),
    });
    expect(seeded.status).toBe(200);
  });
  afterAll(async () => server?.close());

  function headersFor(c: MalformedCase): Record<string, string> {
    const h: Record<string, string> = {};
    const auth =
      c.authorization === undefined
        ? c.path.startsWith("/v1/admin")
          ? `Bearer ${ADMIN}`
          : tenantAuth
        : c.authorization === "$TENANT"
          ? tenantAuth
          : c.authorization;
    if (auth !== null) h.authorization = auth;
    const ct = c.contentType === undefined ? (c.method === "POST" ? "application/json" : null) : c.contentType;
    if (ct !== null) h["content-type"] = ct;
    return h;
  }

  function judge(name: string, status: number, text: string): Outcome {
    try {
      const body = JSON.parse(text) as { error?: { code?: string; requestId?: string } };
      return { name, status, code: body.error?.code, requestId: body.error?.requestId };
    } catch {
      return { name, status };
    }
  }

  const bad = (o: Outcome) => o.status < 400 || o.status > 499 || !o.code || !CODES.has(o.code) || !o.requestId;

  it(`has at least 200 generated cases (${corpus.length})`, () => {
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it("over HTTP: all 4xx with a known code, zero 5xx, and the server stays healthy", async () => {
    const outcomes: Outcome[] = [];
    for (const c of corpus) {
      if (c.raw || Buffer.isBuffer(c.body)) {
        const r = await rawRequest(server.url, {
          method: c.method,
          path: c.path,
          headers: headersFor(c),
          ...(c.body !== undefined ? { body: c.body } : {}),
          ...(c.raw?.contentLength !== undefined ? { contentLength: c.raw.contentLength } : {}),
        });
        outcomes.push(judge(c.name, r.status, r.body));
      } else {
        const res = await fetch(server.url + c.path, {
          method: c.method,
          headers: headersFor(c),
          ...(c.body !== undefined ? { body: c.body } : {}),
        });
        outcomes.push(judge(c.name, res.status, await res.text()));
      }
    }
    const failures = outcomes.filter(bad);
    expect(failures, JSON.stringify(failures.slice(0, 20), null, 1)).toEqual([]);
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    // Spread of answers: the corpus exercises validation, not just one gate.
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const s of [400, 401, 413, 415]) expect(statuses).toContain(s);
    // Each family is refused by the gate meant for it, not by an earlier one.
    const codesOf = (pattern: RegExp, except = /$^/) =>
      new Set(outcomes.filter((o) => pattern.test(o.name) && !except.test(o.name)).map((o) => o.code));
    expect(codesOf(/invalid UTF-8|truncated at/)).toEqual(new Set(["invalid_json"]));
    expect(
      codesOf(/surrogate|NUL|as (null|number|string|boolean|array|object)$|missing /, /invalid UTF-8|: auth /),
    ).toEqual(new Set(["bad_request"]));
    expect(codesOf(/content-type (text|application|multipart)/)).toEqual(new Set(["unsupported_media_type"]));
    expect(codesOf(/over the (request|per-result) limit|content-length above/)).toEqual(new Set(["payload_too_large"]));
    expect(codesOf(/: auth /)).toEqual(new Set(["unauthorized"]));

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const ok = await fetch(`${server.url}/v1/sessions/s-corpus/captures`, {
      method: "POST",
      headers: { authorization: tenantAuth, "content-type": "application/json" },
      body: JSON.stringify({ ...validCaptures(), captureId: "after-corpus" }),
    });
    expect(ok.status).toBe(200);
    // Nothing malformed was stored: the session still holds only the seeded call.
    const status = (await (
      await fetch(`${server.url}/v1/sessions/s-corpus/status`, { headers: { authorization: tenantAuth } })
    ).json()) as { captures: { total: number } };
    expect(status.captures.total).toBe(1);
  });

  it("through app.request: the same answers without a socket", async () => {
    const outcomes: Outcome[] = [];
    for (const c of corpus) {
      if (c.raw) continue;
      const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? new Uint8Array(c.body) : c.body;
      const res = await server.app.request(c.path, {
        method: c.method,
        headers: headersFor(c),
        ...(body !== undefined ? { body } : {}),
      });
      outcomes.push(judge(c.name, res.status, await res.text()));
    }
    expect(outcomes.length).toBeGreaterThanOrEqual(200);
    expect(outcomes.filter(bad)).toEqual([]);
  });
});
