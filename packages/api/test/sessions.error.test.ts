import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";
import { batch, call, capturesBody } from "@condense/test-support/flush-plan";

const SMALL = { maxRequestBytes: 64 * 1024, maxResultBytes: 8 * 1024 };

describe("error vocabulary (app.request)", () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await createHarness({ config: { ...SMALL, rateLimit: { perSecond: 1, burst: 1000 } } });
    t = await h.tenant("acme");
    await h.request("/v1/sessions/s1/captures", post(t.headers, capturesBody("c0", [batch(0, [call("a", 1)])])));
  });
  afterAll(async () => h?.close());

  const expectError = (r: { status: number; body: any }, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ error: { code, message: expect.any(String), requestId: expect.any(String) } });
  };

  it("answers a zod failure with 400 and the field paths", async () => {
    const r = await h.json(
      "/v1/sessions/s1/captures",
      post(t.headers, {
        captureId: "c",
        batches: [{ turnIndex: "zero", timestamp: 1, assistantText: "", toolCalls: [] }],
      }),
    );
    expectError(r, 400, "bad_request");
    const paths = r.body.error.issues.map((i: { path: string }) => i.path);
    expect(paths).toContain("body.batches.0.turnIndex");
    expect(paths).toContain("body.batches.0.toolCalls");
    expect(r.body.error.message).toMatch(/^body\.batches\.0\./);
  });

  it("answers malformed JSON with 400 invalid_json", async () => {
    expectError(
      await h.json("/v1/sessions/s1/captures", post(t.headers, '{"captureId": "x", "batches": [')),
      400,
      "invalid_json",
    );
  });

  it("answers a wrong content type with 415", async () => {
    expectError(
      await h.json("/v1/sessions/s1/captures", {
        method: "POST",
        headers: { ...t.headers, "content-type": "text/plain" },
        body: "{}",
      }),
      415,
      "unsupported_media_type",
    );
    expectError(
      await h.json("/v1/sessions/s1/query", {
        method: "POST",
        headers: { ...t.headers, "content-type": "application/x-www-form-urlencoded" },
        body: "toolCallIds=t1",
      }),
      415,
      "unsupported_media_type",
    );
  });

  it("answers an oversized body with 413 and an oversized result with 413 naming it", async () => {
    const huge = capturesBody("c", [batch(0, [call("a", 1, "x".repeat(70 * 1024))])]);
    expectError(await h.json("/v1/sessions/s1/captures", post(t.headers, huge)), 413, "payload_too_large");
    const oneResult = await h.json(
      "/v1/sessions/s1/captures",
      post(t.headers, capturesBody("c", [batch(0, [call("a", 1), call("b", 2, "y".repeat(9 * 1024))])])),
    );
    expectError(oneResult, 413, "payload_too_large");
    expect(oneResult.body.error.message).toContain("batches.0.toolCalls.1.resultText");
    // Nothing of the refused request was stored.
    const status = await h.json("/v1/sessions/s1/status", get(t.headers));
    expect(status.body.captures.total).toBe(1);
  });

  it("refuses strings Postgres cannot store (lone surrogates, NUL) with 400", async () => {
    const lone = await h.json(
      "/v1/sessions/s1/captures",
      post(
        t.headers,
        '{"captureId":"c","batches":[{"turnIndex":0,"timestamp":1,"assistantText":"\\ud800","toolCalls":[{"toolCallId":"a","toolName":"bash","args":{},"resultText":"ok","isError":false}]}]}',
      ),
    );
    expectError(lone, 400, "bad_request");
    expect(lone.body.error.issues[0].path).toBe("body.batches.0.assistantText");
    const nul = await h.json(
      "/v1/sessions/s1/captures",
      post(t.headers, capturesBody("c", [batch(0, [call("a", 1, "ok", { args: { deep: ["x\u0000y"] } })])])),
    );
    expectError(nul, 400, "bad_request");
    expect(nul.body.error.issues[0].path).toBe("body.batches.0.toolCalls.0.args.deep.0");
  });

  it("answers 404 in the same shape for unknown sessions and unknown routes", async () => {
    expectError(await h.json("/v1/sessions/nope/state", get(t.headers)), 404, "not_found");
    expectError(await h.json("/v1/sessions/nope/flushes", post(t.headers, { trigger: "manual" })), 404, "not_found");
    expectError(await h.json("/v1/nowhere", get(t.headers)), 404, "not_found");
    expectError(await h.json("/nowhere"), 404, "not_found");
    expectError(await h.json("/v1/sessions/s1/captures", get(t.headers)), 404, "not_found");
  });

  it("answers 409 when a flushId is reused for another session", async () => {
    await h.request("/v1/sessions/s2/captures", post(t.headers, capturesBody("c", [batch(0, [call("z", 1)])])));
    const flushId = "0b6f1c2e-5d4a-4f0e-9b1a-2c3d4e5f6a7b";
    expect((await h.json("/v1/sessions/s1/flushes", post(t.headers, { trigger: "manual", flushId }))).status).toBe(202);
    expectError(
      await h.json("/v1/sessions/s2/flushes", post(t.headers, { trigger: "manual", flushId })),
      409,
      "conflict",
    );
  });

  it("answers an invalid cursor, trigger or since with 400", async () => {
    expectError(await h.json("/v1/sessions?cursor=bm90LWEtY3Vyc29y", get(t.headers)), 400, "bad_request");
    expectError(
      await h.json("/v1/sessions/s1/flushes", post(t.headers, { trigger: "every-turn" })),
      400,
      "bad_request",
    );
    expectError(await h.json("/v1/sessions/s1/state?since=-1", get(t.headers)), 400, "bad_request");
    expectError(await h.json("/v1/sessions/s1/state?since=abc", get(t.headers)), 400, "bad_request");
    expectError(await h.json("/v1/sessions/bad%20id/state", get(t.headers)), 400, "bad_request");
  });

  it("answers 401 without a key, with a malformed key and with an unknown key", async () => {
    expectError(await h.json("/v1/sessions/s1/state"), 401, "unauthorized");
    expectError(await h.json("/v1/sessions/s1/state", get({ authorization: "Basic abc" })), 401, "unauthorized");
    expectError(
      await h.json("/v1/sessions/s1/state", get({ authorization: `Bearer ck_${"A".repeat(43)}` })),
      401,
      "unauthorized",
    );
  });
});

describe("rate limits (token bucket per tenant)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { rateLimit: { perSecond: 1, burst: 3 } } });
  });
  afterAll(async () => h?.close());

  it("answers 429 with Retry-After once the burst is spent, per tenant", async () => {
    const a = await h.tenant();
    const b = await h.tenant();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const r = await h.request("/v1/sessions", get(a.headers));
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited!.json()) as any).error.code).toBe("rate_limited");
    // Another tenant has its own bucket.
    expect((await h.request("/v1/sessions", get(b.headers))).status).toBe(200);
  });
});
