import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";

const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };

describe("admin key lifecycle: security", () => {
  let h: Harness;
  let a: TestTenant;
  let b: TestTenant;
  let aKeyId = "";
  beforeAll(async () => {
    h = await createHarness();
    a = await h.tenant("alpha");
    b = await h.tenant("beta");
    aKeyId = (await h.json("/v1/admin/tenants/alpha/keys", get(admin))).body.keys[0].id;
  });
  afterAll(async () => h?.close());

  const routes = (keyId: string): [string, RequestInit["method"]][] => [
    ["/v1/admin/tenants/alpha/keys", "GET"],
    [`/v1/admin/tenants/alpha/keys/${keyId}/revoke`, "POST"],
    [`/v1/admin/tenants/alpha/keys/${keyId}/rotate`, "POST"],
  ];

  it("every key route needs the admin key: none, a wrong one, or a tenant key get 401", async () => {
    for (const [path, method] of routes(aKeyId)) {
      for (const auth of [undefined, "Bearer wrong-admin-key-000000", `Bearer ${a.key}`]) {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          ...(auth ? { authorization: auth } : {}),
        };
        const r = await h.request(path, { method, headers, ...(method === "POST" ? { body: "{}" } : {}) });
        expect(r.status, `${method} ${path} with ${auth ?? "no auth"}`).toBe(401);
      }
    }
    expect((await h.request("/v1/sessions", get(a.headers))).status).toBe(200);
  });

  it("a key cannot be revoked or rotated through another tenant's path", async () => {
    expect(
      (await h.request(`/v1/admin/tenants/beta/keys/${aKeyId}/revoke`, { method: "POST", headers: admin })).status,
    ).toBe(404);
    expect((await h.request(`/v1/admin/tenants/beta/keys/${aKeyId}/rotate`, post(admin, {}))).status).toBe(404);
    expect((await h.request("/v1/sessions", get(a.headers))).status).toBe(200);
    const betaList = await h.json("/v1/admin/tenants/beta/keys", get(admin));
    expect(betaList.body.keys.map((k: { id: string }) => k.id)).not.toContain(aKeyId);
    expect((await h.request("/v1/sessions", get(b.headers))).status).toBe(200);
  });

  it("admin routes are closed when no admin key is configured", async () => {
    const closed = await createHarness({ config: { adminKey: "" } });
    try {
      const r = await closed.json("/v1/admin/tenants/alpha/keys", get({ authorization: "Bearer " }));
      expect(r.status).toBe(401);
      expect(r.body.error.message).toMatch(/CONDENSE_ADMIN_KEY/);
    } finally {
      await closed.close();
    }
  });
});
