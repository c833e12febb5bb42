import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createHarness, get, post, type Harness } from "./support/harness.ts";

const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
const missing = "00000000-0000-4000-8000-000000000000";

describe("admin key lifecycle: errors", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.tenant("acme");
  });
  afterAll(async () => h?.close());

  it("an unknown tenant is a 404 with the error shape", async () => {
    const r = await h.json("/v1/admin/tenants/nobody/keys", get(admin));
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: "not_found" });
    expect(typeof r.body.error.requestId).toBe("string");
  });

  it("revoking or rotating an unknown key, or one already revoked, is a 404 saying what is wrong", async () => {
    expect(
      (await h.json(`/v1/admin/tenants/acme/keys/${missing}/revoke`, { method: "POST", headers: admin })).status,
    ).toBe(404);
    expect((await h.json(`/v1/admin/tenants/acme/keys/${missing}/rotate`, post(admin, {}))).status).toBe(404);
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, {}));
    expect(
      (await h.request(`/v1/admin/tenants/acme/keys/${k.body.id}/revoke`, { method: "POST", headers: admin })).status,
    ).toBe(200);
    const again = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/revoke`, { method: "POST", headers: admin });
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain(k.body.id);
    const rot = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, {}));
    expect(rot.status).toBe(404);
    expect(rot.body.error.message).toMatch(/cannot be rotated/);
  });

  it("a rotated key cannot be rotated a second time (one successor per key)", async () => {
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, {}));
    expect(
      (await h.request(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, { graceSeconds: 60 }))).status,
    ).toBe(201);
    expect((await h.request(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, {}))).status).toBe(404);
  });

  it("a key id that is not a uuid, and bad grace values, are 400 naming the field", async () => {
    const bad = await h.json("/v1/admin/tenants/acme/keys/not-a-uuid/revoke", { method: "POST", headers: admin });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.issues)).toContain("keyId");
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, {}));
    for (const graceSeconds of [-1, 1.5, "60", 31 * 24 * 3600]) {
      const r = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, { graceSeconds }));
      expect(r.status, JSON.stringify(graceSeconds)).toBe(400);
      expect(JSON.stringify(r.body.error.issues)).toContain("graceSeconds");
    }
    // nothing was rotated by the refused requests
    expect((await h.request(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, {}))).status).toBe(201);
  });
});
