import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFlushRequest,
  createFlushRequestForSession,
  ensureTenant,
  getFlushRequest,
  getSession,
  insertCaptures,
  FlushRequestConflictError,
} from "../src/index.ts";
import { batch, call } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

// The API's flush request: one statement that checks the session exists and records the request.
describe.each(testDbKinds())("createFlushRequestForSession (%s)", (kind) => {
  let t: TestDb;
  const red = { tenantId: "red", sessionId: "s1" };
  const blue = { tenantId: "blue", sessionId: "s1" };
  beforeAll(async () => {
    t = await createTestDb(kind);
    const db = t.handle.db;
    for (const key of [red, blue]) {
      await ensureTenant(db, { id: key.tenantId });
      await insertCaptures(db, {
        ...key,
        captureId: "c1",
        batches: [batch(0, [call("a", 1, "out a"), call("b", 2, "out b")])],
      });
    }
    // red's session carries stored settings (written as a flush with settings would write them)
    await createFlushRequest(db, { ...red, trigger: "manual", settings: { budgetPercent: 42, futureKey: "kept" } });
  });
  afterAll(async () => t?.drop());

  it("returns null for a session that does not exist, and creates neither session nor request", async () => {
    const db = t.handle.db;
    const missing = { tenantId: "red", sessionId: "nobody" };
    expect(await createFlushRequestForSession(db, { ...missing, trigger: "manual" })).toBeNull();
    expect(
      await createFlushRequestForSession(db, {
        ...missing,
        trigger: "manual",
        id: "00000000-0000-4000-8000-000000000001",
      }),
    ).toBeNull();
    expect(await getSession(db, missing)).toBeNull();
    expect(await getFlushRequest(db, "red", "00000000-0000-4000-8000-000000000001")).toBeNull();
  });

  it("records the request with the cursor at the session's highest capture and its stored settings", async () => {
    const db = t.handle.db;
    const before = await getSession(db, red);
    const r = await createFlushRequestForSession(db, {
      ...red,
      trigger: "budget",
      metrics: { contextTokens: 10 },
      chains: [{ id: "c" }],
    });
    expect(r).not.toBeNull();
    expect(r!.created).toBe(true);
    expect(r!.status).toBe("queued");
    expect(r!.cursor).toBeGreaterThan(0);
    expect(r!.trigger).toBe("budget");
    expect(r!.metrics).toEqual({ contextTokens: 10 });
    expect(r!.chains).toEqual([{ id: "c" }]);
    expect(r!.settings).toEqual(before!.settings);
    expect(r!.settings).toMatchObject({ futureKey: "kept" });
    // without settings the session's snapshot is left as it was
    expect((await getSession(db, red))!.settings).toEqual(before!.settings);
  });

  it("settings sent with the request become the session's snapshot and the request's", async () => {
    const db = t.handle.db;
    const r = await createFlushRequestForSession(db, { ...blue, trigger: "manual", settings: { budgetPercent: 7 } });
    expect(r!.settings).toEqual({ budgetPercent: 7 });
    expect((await getSession(db, blue))!.settings).toEqual({ budgetPercent: 7 });
  });

  it("a retried id returns the first request; the same id under another session or tenant is a conflict", async () => {
    const db = t.handle.db;
    const id = "00000000-0000-4000-8000-0000000000aa";
    const first = await createFlushRequestForSession(db, { ...red, trigger: "manual", id });
    expect(first!.created).toBe(true);
    const again = await createFlushRequestForSession(db, { ...red, trigger: "reply", id });
    expect(again!.created).toBe(false);
    expect(again!.id).toBe(id);
    expect(again!.trigger).toBe("manual");
    await ensureTenant(db, { id: "red" });
    await insertCaptures(db, {
      tenantId: "red",
      sessionId: "s2",
      captureId: "c1",
      batches: [batch(0, [call("z", 1, "out z")])],
    });
    await expect(
      createFlushRequestForSession(db, { tenantId: "red", sessionId: "s2", trigger: "manual", id }),
    ).rejects.toBeInstanceOf(FlushRequestConflictError);
    await expect(createFlushRequestForSession(db, { ...blue, trigger: "manual", id })).rejects.toBeInstanceOf(
      FlushRequestConflictError,
    );
    // nothing leaked across the tenant boundary
    expect(await getFlushRequest(db, "blue", id)).toBeNull();
    // a session that does not exist is a not-found even when the id is taken
    expect(
      await createFlushRequestForSession(db, { tenantId: "red", sessionId: "nobody", trigger: "manual", id }),
    ).toBeNull();
    expect(
      await createFlushRequestForSession(db, { tenantId: "blue", sessionId: "nobody", trigger: "manual", id }),
    ).toBeNull();
  });
});
