import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/observability/logger.ts";
import { adminFingerprint } from "../src/routes/v1/admin/admin-audit.ts";
import { ADMIN_KEY, createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";

const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", "user-agent": "keys-test" };

describe("admin key lifecycle: list, revoke, rotate (happy path)", () => {
  let h: Harness;
  let t: TestTenant;
  const logLines: Record<string, any>[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _e, cb) {
        for (const l of String(chunk).split("\n")) if (l) logLines.push(JSON.parse(l));
        cb();
      },
    });
    h = await createHarness({ deps: { logger: createLogger("info", sink) } });
    t = await h.tenant("acme");
  });
  afterAll(async () => h?.close());

  const keyIdOf = async (key: string) => {
    const list = await h.json("/v1/admin/tenants/acme/keys", get(admin));
    return list.body.keys.find((k: { prefix: string }) => key.startsWith(k.prefix))?.id as string;
  };

  it("lists keys with prefix, label, status and never the secret", async () => {
    const r = await h.json("/v1/admin/tenants/acme/keys", get(admin));
    expect(r.status).toBe(200);
    expect(r.body.keys).toHaveLength(1);
    expect(r.body.keys[0]).toMatchObject({ tenantId: "acme", label: "test", status: "active", revokedAt: null });
    expect(t.key.startsWith(r.body.keys[0].prefix)).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(t.key);
  });

  it("a revoked key gets 401 on the very next request, though it was just served from the cache", async () => {
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, { label: "short" }));
    const headers = { authorization: `Bearer ${k.body.key}` };
    expect((await h.request("/v1/sessions", get(headers))).status).toBe(200);
    expect((await h.request("/v1/sessions", get(headers))).status).toBe(200); // cached now
    const r = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/revoke`, { method: "POST", headers: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: k.body.id, tenantId: "acme" });
    expect((await h.request("/v1/sessions", get(headers))).status).toBe(401);
    const listed = await h.json("/v1/admin/tenants/acme/keys", get(admin));
    expect(listed.body.keys.find((x: { id: string }) => x.id === k.body.id).status).toBe("revoked");
    // the other keys of the tenant keep working
    expect((await h.request("/v1/sessions", get(t.headers))).status).toBe(200);
  });

  it("rotation returns a new secret that works and revokes the old one at once", async () => {
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, { label: "deploy" }));
    const oldHeaders = { authorization: `Bearer ${k.body.key}` };
    expect((await h.request("/v1/sessions", get(oldHeaders))).status).toBe(200);
    const r = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, {}));
    expect(r.status).toBe(201);
    expect(r.res.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toMatchObject({ tenantId: "acme", label: "deploy", replaced: { id: k.body.id } });
    expect(r.body.key).not.toBe(k.body.key);
    expect((await h.request("/v1/sessions", get(oldHeaders))).status).toBe(401);
    expect((await h.request("/v1/sessions", get({ authorization: `Bearer ${r.body.key}` }))).status).toBe(200);
    expect(await keyIdOf(r.body.key)).toBe(r.body.id);
  });

  it("rotation with a grace period: both keys work until the deadline, then only the new one", async () => {
    const k = await h.json("/v1/admin/tenants/acme/keys", post(admin, { label: "graceful" }));
    const oldHeaders = { authorization: `Bearer ${k.body.key}` };
    expect((await h.request("/v1/sessions", get(oldHeaders))).status).toBe(200);
    const r = await h.json(`/v1/admin/tenants/acme/keys/${k.body.id}/rotate`, post(admin, { graceSeconds: 3600 }));
    expect(r.status).toBe(201);
    expect(Date.parse(r.body.replaced.revokedAt) - Date.now()).toBeGreaterThan(3500_000);
    expect((await h.request("/v1/sessions", get(oldHeaders))).status).toBe(200);
    expect((await h.request("/v1/sessions", get({ authorization: `Bearer ${r.body.key}` }))).status).toBe(200);
    const listed = await h.json("/v1/admin/tenants/acme/keys", get(admin));
    expect(listed.body.keys.find((x: { id: string }) => x.id === k.body.id)).toMatchObject({
      status: "expiring",
      revokedAt: r.body.replaced.revokedAt,
    });
    // ending the grace early: revoke the old key now
    expect(
      (await h.request(`/v1/admin/tenants/acme/keys/${k.body.id}/revoke`, { method: "POST", headers: admin })).status,
    ).toBe(200);
    expect((await h.request("/v1/sessions", get(oldHeaders))).status).toBe(401);
  });

  it("every operation writes one audit line: who (admin fingerprint, user agent), action, tenant, key id; never a secret", async () => {
    const audits = logLines.filter((l) => l.audit).map((l) => l.audit);
    const actions = audits.map((a) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining(["api_key.create", "api_key.list", "api_key.revoke", "api_key.rotate"]),
    );
    const revoke = audits.find((a) => a.action === "api_key.revoke")!;
    expect(revoke).toMatchObject({
      tenantId: "acme",
      actor: { kind: "admin_key", fingerprint: adminFingerprint(ADMIN_KEY), userAgent: "keys-test" },
    });
    expect(revoke.keyId).toMatch(/^[0-9a-f-]{36}$/);
    const rotate = audits.find((a) => a.action === "api_key.rotate" && a.graceSeconds === 3600)!;
    expect(rotate.newKeyId).toMatch(/^[0-9a-f-]{36}$/);
    const all = JSON.stringify(logLines);
    expect(all).not.toContain(ADMIN_KEY);
    expect(all).not.toContain(t.key);
  });
});
