import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTenant, insertCaptures, loadPendingCaptures, maxCaptureSeq, getSession } from "../src/index.ts";
import { batch, call } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

describe.each(testDbKinds())("captures (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  it("a retried POST is a no-op and reports duplicates", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "s-retry" };
    const batches = [batch(0, [call("a", 10), call("b", 11)]), batch(1, [call("c", 12)])];
    const first = await insertCaptures(db, { ...key, captureId: "cap-1", batches });
    expect(first).toMatchObject({ accepted: 3, duplicate: 0 });
    const again = await insertCaptures(db, { ...key, captureId: "cap-1", batches });
    expect(again).toEqual({ accepted: 0, duplicate: 3, maxSeq: first.maxSeq });
    // A later POST overlapping one known occurrence stores only the new one.
    const more = await insertCaptures(db, {
      ...key,
      captureId: "cap-2",
      batches: [batch(2, [call("c", 12), call("d", 13)])],
    });
    expect(more).toMatchObject({ accepted: 1, duplicate: 1 });
    expect(more.maxSeq).toBeGreaterThan(first.maxSeq);
    expect(await maxCaptureSeq(db, key)).toBe(more.maxSeq);
    expect((await getSession(db, key))?.lastCaptureAt).toBeInstanceOf(Date);
  });

  it("a reused provider id with a new result timestamp is a new occurrence", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "s-reuse" };
    const r = await insertCaptures(db, {
      ...key,
      captureId: "c1",
      batches: [batch(0, [call("x", 1)]), batch(1, [call("x", 2)])],
    });
    expect(r.accepted).toBe(2);
    const pending = await loadPendingCaptures(db, { ...key, cursor: r.maxSeq });
    expect(pending.flatMap((b) => b.toolCalls.map((c) => c.occurrenceKey))).toEqual(["x@1", "x@2"]);
  });

  it("pending captures come back as the client's batches, in order, bounded by the cursor", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "s-load" };
    const r1 = await insertCaptures(db, {
      ...key,
      captureId: "p1",
      batches: [
        batch(0, [call("a", 1, "A", { isError: true }), call("b", 2)]),
        { ...batch(1, [call("c", 3)]), userTurnGroup: 4 },
      ],
    });
    const r2 = await insertCaptures(db, { ...key, captureId: "p2", batches: [batch(2, [call("d", 4)])] });
    const upToFirst = await loadPendingCaptures(db, { ...key, cursor: r1.maxSeq });
    expect(upToFirst).toHaveLength(2);
    expect(upToFirst[0]).toMatchObject({ captureId: "p1", batchIndex: 0, turnIndex: 0, assistantText: "turn 0" });
    expect(upToFirst[0]!.toolCalls.map((c) => [c.toolCallId, c.isError, c.resultText])).toEqual([
      ["a", true, "A"],
      ["b", false, "output of b"],
    ]);
    expect(upToFirst[1]).toMatchObject({ userTurnGroup: 4, turnIndex: 1 });
    const all = await loadPendingCaptures(db, { ...key, cursor: r2.maxSeq });
    expect(all.map((b) => b.turnIndex)).toEqual([0, 1, 2]);
    expect(all[2]!.toolCalls[0]).toMatchObject({
      toolCallId: "d",
      resultTimestamp: 4,
      occurrenceKey: "d@4",
      args: { cmd: "echo d" },
    });
  });

  it("an unknown tenant cannot capture (foreign key)", async () => {
    await expect(
      insertCaptures(t.handle.db, {
        tenantId: "nobody",
        sessionId: "s",
        captureId: "c",
        batches: [batch(0, [call("a", 1)])],
      }),
    ).rejects.toThrow();
  });
});
