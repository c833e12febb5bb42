import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";
import { batch, call, capturesBody, commitAllPending } from "@condense/test-support/flush-plan";

describe("tenancy and auth (app.request)", () => {
  let h: Harness;
  let a: TestTenant;
  let b: TestTenant;
  beforeAll(async () => {
    h = await createHarness();
    a = await h.tenant("alpha");
    b = await h.tenant("beta");
    await h.request(
      "/v1/sessions/secret/captures",
      post(a.headers, capturesBody("c1", [batch(0, [call("tool_1", 10, "alpha's private output")])])),
    );
    await commitAllPending(h.db.db, { tenantId: "alpha", sessionId: "secret" });
  });
  afterAll(async () => h?.close());

  const probes: [string, string, (tenant: TestTenant) => RequestInit][] = [
    ["GET", "/v1/sessions/secret/state?since=0", (t) => get(t.headers)],
    ["GET", "/v1/sessions/secret/status", (t) => get(t.headers)],
    ["GET", "/v1/sessions/secret/events", (t) => get(t.headers)],
    ["POST", "/v1/sessions/secret/query", (t) => post(t.headers, { toolCallIds: ["t1", "tool_1", "tool_1@10"] })],
    ["POST", "/v1/sessions/secret/flushes", (t) => post(t.headers, { trigger: "manual" })],
  ];

  for (const [method, path, init] of probes) {
    it(`another tenant's session answers 404 (never 403): ${method} ${path}`, async () => {
      const r = await h.json(path, init(b));
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
      expect(JSON.stringify(r.body)).not.toContain("alpha");
    });
  }

  it("a capture under the same session id lands in the caller's own tenant and leaves the other untouched", async () => {
    const before = await h.json("/v1/sessions/secret/state?since=0", get(a.headers));
    const r = await h.json(
      "/v1/sessions/secret/captures",
      post(b.headers, capturesBody("c1", [batch(0, [call("tool_1", 10, "beta's output")])])),
    );
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(1);
    expect(await h.json("/v1/sessions/secret/state?since=0", get(a.headers))).toMatchObject({ body: before.body });
    const bq = await h.json("/v1/sessions/secret/query", post(b.headers, { toolCallIds: ["tool_1", "t1"] }));
    expect(bq.body.hits).toEqual([]);
    expect(bq.body.text).not.toContain("alpha's private output");
    const aq = await h.json("/v1/sessions/secret/query", post(a.headers, { toolCallIds: ["t1"] }));
    expect(aq.body.hits[0].resultText).toBe("alpha's private output");
  });

  it("lists and fleet status only show the caller's own sessions", async () => {
    const list = await h.json("/v1/sessions", get(b.headers));
    expect(list.body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(["secret"]);
    const fleetB = await h.json("/v1/fleet/status", get(b.headers));
    expect(fleetB.body.flushes.total).toBe(0);
    const fleetA = await h.json("/v1/fleet/status", get(a.headers));
    expect(fleetA.body.flushes.total).toBe(1);
  });

  it("admin routes need the admin key; tenant keys are refused there and the admin key is refused on tenant routes", async () => {
    const body = JSON.stringify({ name: "x" });
    const json = { "content-type": "application/json" };
    expect((await h.request("/v1/admin/tenants", { method: "POST", headers: json, body })).status).toBe(401);
    expect(
      (
        await h.request("/v1/admin/tenants", {
          method: "POST",
          headers: { ...json, authorization: `Bearer ${a.key}` },
          body,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await h.request("/v1/admin/tenants/alpha/keys", {
          method: "POST",
          headers: { ...json, authorization: `Bearer ${a.key}` },
          body: "{}",
        })
      ).status,
    ).toBe(401);
    expect((await h.request("/v1/sessions", get({ authorization: `Bearer ${ADMIN_KEY}` }))).status).toBe(401);
  });

  it("admin creates tenants (409 on a taken id) and keys (404 for an unknown tenant); a key works at once", async () => {
    const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
    const created = await h.json("/v1/admin/tenants", post(admin, { id: "gamma", name: "Gamma" }));
    expect(created.status).toBe(201);
    expect((await h.json("/v1/admin/tenants", post(admin, { id: "gamma", name: "Gamma" }))).body.error.code).toBe(
      "conflict",
    );
    expect((await h.json("/v1/admin/tenants/nobody/keys", post(admin, {}))).status).toBe(404);
    const key = await h.json("/v1/admin/tenants/gamma/keys", post(admin, { label: "ci" }));
    expect(key.status).toBe(201);
    expect(key.res.headers.get("cache-control")).toBe("no-store");
    expect(key.body.key).toMatch(/^ck_/);
    expect(key.body.prefix).toBe(key.body.key.slice(0, key.body.prefix.length));
    expect((await h.request("/v1/sessions", get({ authorization: `Bearer ${key.body.key}` }))).status).toBe(200);
  });

  it("admin routes are closed when no admin key is configured", async () => {
    const closed = await createHarness({ config: { adminKey: "" }, db: h.db });
    try {
      const r = await closed.json(
        "/v1/admin/tenants",
        post({ authorization: "Bearer ", "content-type": "application/json" }, { name: "x" }),
      );
      expect(r.status).toBe(401);
      expect(r.body.error.message).toContain("disabled");
    } finally {
      await closed.close();
    }
  });

  it("echoes a sane x-request-id and replaces anything else", async () => {
    const r = await h.request("/v1/sessions/secret/state", get({ ...a.headers, "x-request-id": "trace-123" }));
    expect(r.headers.get("x-request-id")).toBe("trace-123");
    const bad = await h.request(
      "/v1/sessions/secret/state",
      get({ ...a.headers, "x-request-id": "bad id with spaces" }),
    );
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
