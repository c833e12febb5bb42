import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import {
  authenticateApiKey,
  authenticateKeyWithDeadline,
  createApiKey,
  ensureTenant,
  listTenantKeys,
  revokeTenantKey,
  rotateTenantKey,
  subscribeKeyRevocations,
} from "../src/index.ts";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`never happened: ${what}`);
};

describe.each(testDbKinds())("api key lifecycle (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "red" });
    await ensureTenant(t.handle.db, { id: "blue" });
  });
  afterAll(async () => t?.drop());

  it("lists a tenant's keys with their status, never the secret or another tenant's keys", async () => {
    const db = t.handle.db;
    const a = await createApiKey(db, { tenantId: "red", label: "ci" });
    await createApiKey(db, { tenantId: "blue", label: "other" });
    const listed = await listTenantKeys(db, "red");
    expect(listed.map((k) => [k.id, k.label, k.status])).toContainEqual([a.id, "ci", "active"]);
    expect(listed.every((k) => k.tenantId === "red")).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(a.key);
  });

  it("revocation ends the key at once, only within its tenant, and only once", async () => {
    const db = t.handle.db;
    const k = await createApiKey(db, { tenantId: "red" });
    expect(await revokeTenantKey(db, { tenantId: "blue", keyId: k.id })).toBeNull();
    expect(await authenticateApiKey(db, k.key)).not.toBeNull();
    const r = await revokeTenantKey(db, { tenantId: "red", keyId: k.id });
    expect(r?.id).toBe(k.id);
    expect(await authenticateApiKey(db, k.key)).toBeNull();
    expect(await revokeTenantKey(db, { tenantId: "red", keyId: k.id })).toBeNull();
    expect((await listTenantKeys(db, "red")).find((x) => x.id === k.id)?.status).toBe("revoked");
  });

  it("rotation without grace: the new key works, the old one does not, the label carries over", async () => {
    const db = t.handle.db;
    const k = await createApiKey(db, { tenantId: "red", label: "deploy" });
    const r = await rotateTenantKey(db, { tenantId: "red", keyId: k.id });
    expect(r).not.toBeNull();
    expect(r!.created.key).not.toBe(k.key);
    expect(r!.created.label).toBe("deploy");
    expect(await authenticateApiKey(db, k.key)).toBeNull();
    expect(await authenticateApiKey(db, r!.created.key)).toEqual({ tenantId: "red", keyId: r!.created.id });
    // a revoked key cannot be rotated again (that would mint a second successor)
    expect(await rotateTenantKey(db, { tenantId: "red", keyId: k.id })).toBeNull();
    expect(await rotateTenantKey(db, { tenantId: "blue", keyId: r!.created.id })).toBeNull();
  });

  it("rotation with grace: the old key works until the deadline, then stops (deadline moved into the past)", async () => {
    const db = t.handle.db;
    const k = await createApiKey(db, { tenantId: "red" });
    const r = await rotateTenantKey(db, { tenantId: "red", keyId: k.id, graceSeconds: 3600 });
    const old = await authenticateKeyWithDeadline(db, k.key);
    expect(old?.keyId).toBe(k.id);
    expect(old!.validUntil!.getTime()).toBe(r!.old.revokedAt.getTime());
    expect(r!.old.revokedAt.getTime() - Date.now()).toBeGreaterThan(3500_000);
    expect((await listTenantKeys(db, "red")).find((x) => x.id === k.id)?.status).toBe("expiring");
    expect(await authenticateApiKey(db, r!.created.key)).not.toBeNull();
    // the grace period is over once the database's clock passes revoked_at
    await db.execute(sql`update api_keys set revoked_at = now() - interval '1 second' where id = ${k.id}`);
    expect(await authenticateApiKey(db, k.key)).toBeNull();
    expect((await listTenantKeys(db, "red")).find((x) => x.id === k.id)?.status).toBe("revoked");
  });

  it("revoking a key in its grace period ends it now", async () => {
    const db = t.handle.db;
    const k = await createApiKey(db, { tenantId: "red" });
    await rotateTenantKey(db, { tenantId: "red", keyId: k.id, graceSeconds: 3600 });
    expect(await authenticateApiKey(db, k.key)).not.toBeNull();
    expect(await revokeTenantKey(db, { tenantId: "red", keyId: k.id })).not.toBeNull();
    expect(await authenticateApiKey(db, k.key)).toBeNull();
  });

  it("every revocation and rotation is announced on the revocation feed when it commits", async () => {
    const db = t.handle.db;
    const seen: string[] = [];
    let resyncs = 0;
    const feed = await subscribeKeyRevocations(db, {
      onRevoked: (id) => seen.push(id),
      onResync: () => {
        resyncs++;
      },
    });
    try {
      const a = await createApiKey(db, { tenantId: "red" });
      const b = await createApiKey(db, { tenantId: "red" });
      await revokeTenantKey(db, { tenantId: "red", keyId: a.id });
      await rotateTenantKey(db, { tenantId: "red", keyId: b.id, graceSeconds: 60 });
      await until(() => seen.includes(a.id) && seen.includes(b.id), "both notifications");
      // a refused revocation (wrong tenant) announces nothing
      const c = await createApiKey(db, { tenantId: "red" });
      await revokeTenantKey(db, { tenantId: "blue", keyId: c.id });
      await revokeTenantKey(db, { tenantId: "red", keyId: a.id });
      const marker = await createApiKey(db, { tenantId: "red" });
      await revokeTenantKey(db, { tenantId: "red", keyId: marker.id });
      await until(() => seen.includes(marker.id), "marker notification");
      expect(seen.filter((id) => id === c.id || id === a.id)).toEqual([a.id]);
      if (kind === "postgres") expect(resyncs).toBeGreaterThanOrEqual(1);
    } finally {
      await feed.close();
    }
  });
});
