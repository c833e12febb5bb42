import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authenticateApiKey,
  commitFlush,
  createApiKey,
  createFlushRequest,
  ensureTenant,
  findCanonicalByHash,
  fleetStatus,
  getFlushRequest,
  getSession,
  getSessionStatus,
  getStateDelta,
  insertCaptures,
  listApiKeys,
  listSessions,
  loadPendingCaptures,
  lookupRecordsForQuery,
  revokeApiKey,
  FlushRequestConflictError,
} from "../src/index.ts";
import { batch, call, summarizeAll } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

// Two tenants use the SAME session id and the same content; every read must stay inside its tenant.
describe.each(testDbKinds())("tenant isolation and API keys (%s)", (kind) => {
  let t: TestDb;
  const requests: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestDb(kind);
    const db = t.handle.db;
    for (const tenantId of ["red", "blue"]) {
      await ensureTenant(db, { id: tenantId, name: tenantId.toUpperCase() });
      const key = { tenantId, sessionId: "shared" };
      await insertCaptures(db, {
        ...key,
        captureId: "c1",
        batches: [batch(0, [call("a", 1, `secret of ${tenantId}`)])],
      });
      const req = await createFlushRequest(db, { ...key, trigger: "manual" });
      requests[tenantId] = req.id;
      if (tenantId === "red") {
        const plan = summarizeAll(await loadPendingCaptures(db, { ...key, cursor: req.cursor }), tenantId);
        await commitFlush(db, { ...key, flushRequestId: req.id, attempt: 1, mintRefs: plan.mint, writes: plan.writes });
      }
    }
  });
  afterAll(async () => t?.drop());

  it("state, status, captures, recovery and canonicals are per tenant", async () => {
    const db = t.handle.db;
    const red = { tenantId: "red", sessionId: "shared" };
    const blue = { tenantId: "blue", sessionId: "shared" };
    expect((await getStateDelta(db, { ...red, since: 0 }))!.records.map((r) => r.resultText)).toEqual([
      "secret of red",
    ]);
    expect((await getStateDelta(db, { ...blue, since: 0 }))!.records).toEqual([]);
    expect(await getStateDelta(db, { tenantId: "green", sessionId: "shared", since: 0 })).toBeNull();
    expect((await getSessionStatus(db, red))!.records).toBe(1);
    expect((await getSessionStatus(db, blue))!.records).toBe(0);
    expect(await getSessionStatus(db, { tenantId: "green", sessionId: "shared" })).toBeNull();
    expect(
      (await loadPendingCaptures(db, { ...blue, cursor: 1e12 })).flatMap((b) => b.toolCalls.map((c) => c.resultText)),
    ).toEqual(["secret of blue"]);
    expect(await loadPendingCaptures(db, { ...red, cursor: 1e12 })).toEqual([]);
    expect(
      (await lookupRecordsForQuery(db, { ...blue, inputs: ["t1", "a", "a@1"] })).every((a) => a.hits.length === 0),
    ).toBe(true);
    expect((await lookupRecordsForQuery(db, { ...red, inputs: ["t1"] }))[0]!.hits).toHaveLength(1);
    expect(
      (await findCanonicalByHash(db, { tenantId: "blue", sessionId: null, hashes: ["hash:secret of red"] })).size,
    ).toBe(0);
    expect(
      (await findCanonicalByHash(db, { tenantId: "red", sessionId: null, hashes: ["hash:secret of red"] })).size,
    ).toBe(1);
    expect(await getFlushRequest(db, "blue", requests.red!)).toBeNull();
    expect(await getSession(db, { tenantId: "blue", sessionId: "shared" })).toMatchObject({ version: 0, nextRef: 1 });
    const blueFleet = await fleetStatus(db, { tenantId: "blue" });
    expect(blueFleet.flushes.total).toBe(0);
    expect(blueFleet.pendingCaptures).toBe(1);
    const redFleet = await fleetStatus(db, { tenantId: "red" });
    expect(redFleet.flushes).toEqual({ total: 1, byOutcome: { summarized: 1 } });
    expect(redFleet.dedup).toEqual({ hits: 0, attemptedCalls: 1, hitRate: 0 });
    expect(redFleet.runMs.p95).toBe(12);
    expect((await listSessions(db, "blue")).sessions.map((s) => s.sessionId)).toEqual(["shared"]);
    expect((await listSessions(db, "green")).sessions).toEqual([]);
  });

  it("a flush request id cannot be replayed into another tenant or session", async () => {
    const db = t.handle.db;
    await expect(
      createFlushRequest(db, { tenantId: "blue", sessionId: "shared", id: requests.red!, trigger: "manual" }),
    ).rejects.toBeInstanceOf(FlushRequestConflictError);
    await expect(
      commitFlush(db, {
        tenantId: "blue",
        sessionId: "shared",
        flushRequestId: requests.red!,
        attempt: 1,
        mintRefs: [],
        writes: {
          records: [],
          summaries: [],
          aliases: [],
          frontier: null,
          captures: [],
          metrics: { outcome: "empty" },
        },
      }),
    ).rejects.toThrow(/not found/);
    const same = await createFlushRequest(db, {
      tenantId: "blue",
      sessionId: "shared",
      id: requests.blue!,
      trigger: "manual",
    });
    expect(same).toMatchObject({ id: requests.blue, created: false });
  });

  it("api keys are stored hashed, resolve to their tenant, and stop working when revoked", async () => {
    const db = t.handle.db;
    const key = await createApiKey(db, { tenantId: "red", label: "ci" });
    expect(key.key.startsWith("ck_")).toBe(true);
    const stored = await listApiKeys(db, "red");
    expect(JSON.stringify(stored)).not.toContain(key.key);
    expect(await authenticateApiKey(db, key.key)).toEqual({ tenantId: "red", keyId: key.id });
    expect(await authenticateApiKey(db, `${key.key}x`)).toBeNull();
    expect(await listApiKeys(db, "blue")).toEqual([]);
    expect(await revokeApiKey(db, "blue", key.id)).toBe(false);
    expect(await revokeApiKey(db, "red", key.id)).toBe(true);
    expect(await authenticateApiKey(db, key.key)).toBeNull();
  });

  it("listSessions pages by most recent update with an opaque cursor", async () => {
    const db = t.handle.db;
    for (let i = 0; i < 5; i++)
      await insertCaptures(db, {
        tenantId: "blue",
        sessionId: `p${i}`,
        captureId: "c",
        batches: [batch(0, [call("z", i)])],
      });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listSessions(db, "blue", { limit: 2, cursor });
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(["p0", "p1", "p2", "p3", "p4", "shared"]);
    const first = await listSessions(db, "blue", { limit: 1 });
    expect(first.sessions[0]).toMatchObject({ sessionId: "p4", pendingCaptures: 1 });
  });
});
