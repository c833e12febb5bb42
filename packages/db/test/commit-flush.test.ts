import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDelta, createState } from "@condense/core";
import {
  commitChains,
  commitFlush,
  createFlushRequest,
  ensureTenant,
  getFlushRequest,
  getSession,
  getStateDelta,
  insertCaptures,
  loadPendingCaptures,
  loadPendingForFlush,
  recordFlushMetrics,
  reserveRefs,
} from "../src/index.ts";
import { batch, call, summarizeAll } from "@condense/test-support/flush-plan";
import { snapshotRows } from "./support/snapshot.ts";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

describe.each(testDbKinds())("commitFlush (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  async function flushOnce(sessionId: string, tag: string, attempt = 1) {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId };
    const req = await createFlushRequest(db, { ...key, trigger: "manual", metrics: { openCycleThinkingTokens: 5 } });
    const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
    const plan = summarizeAll(pending, tag);
    const input = { ...key, flushRequestId: req.id, attempt, mintRefs: plan.mint, writes: plan.writes };
    return { req, pending, input, result: await commitFlush(db, input) };
  }

  it("re-running the same commit leaves identical rows and returns the committed result", async () => {
    const db = t.handle.db;
    await insertCaptures(db, {
      tenantId: "acme",
      sessionId: "idem",
      captureId: "c1",
      batches: [batch(0, [call("a", 1), call("b", 2)]), batch(1, [call("c", 3)])],
    });
    const { input, result } = await flushOnce("idem", "f1");
    expect(result.status).toBe("committed");
    expect(result.refs).toEqual({ "a@1": "t1", "b@2": "t2", "c@3": "t3" });
    expect(result.written).toMatchObject({ records: 3, summaries: 2, captures: 3, frontier: true, metricsRow: true });
    const before = await snapshotRows(db);
    const again = await commitFlush(db, input);
    expect(again).toEqual({ ...result, status: "already-committed" });
    // A re-delivered job with a later attempt number is also a no-op once the request is committed.
    const later = await commitFlush(db, { ...input, attempt: 2 });
    expect(later.status).toBe("already-committed");
    expect(await snapshotRows(db)).toEqual(before);
    const session = await getSession(db, { tenantId: "acme", sessionId: "idem" });
    expect(session).toMatchObject({ nextRef: 4, version: 1 });
    expect(session!.stats).toMatchObject({ callCount: 2, totalInputTokens: 200 });
    expect((await getFlushRequest(db, "acme", input.flushRequestId))?.status).toBe("committed");
  });

  it("refs are monotonic across flushes and never reused, burned numbers included", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "mono" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1), call("b", 2)])] });
    const f1 = await flushOnce("mono", "f1");
    expect(Object.values(f1.result.refs)).toEqual(["t1", "t2"]);
    // An oversized batch burns its refs without writing records (CAP-REF-1).
    await insertCaptures(db, { ...key, captureId: "c2", batches: [batch(1, [call("c", 3)])] });
    const req = await createFlushRequest(db, { ...key, trigger: "budget" });
    const burned = await commitFlush(db, {
      ...key,
      flushRequestId: req.id,
      attempt: 1,
      mintRefs: [["c@3"]],
      writes: () => ({
        records: [],
        summaries: [],
        aliases: [],
        frontier: null,
        captures: [{ key: "c@3", status: "skipped", reason: "oversized" }],
        metrics: { outcome: "skipped-oversized" },
      }),
    });
    expect(burned.refs).toEqual({ "c@3": "t3" });
    expect(burned.version).toBe(f1.result.version); // nothing in the state changed
    await insertCaptures(db, { ...key, captureId: "c3", batches: [batch(2, [call("d", 4), call("e", 5)])] });
    const f3 = await flushOnce("mono", "f3");
    expect(Object.values(f3.result.refs)).toEqual(["t4", "t5"]);
    const delta = await getStateDelta(db, { ...key, since: 0 });
    const refs = delta!.records.map((r) => r.shortRef);
    expect(refs).toEqual(["t1", "t2", "t4", "t5"]);
    expect(new Set(refs).size).toBe(refs.length);
  });

  it("concurrent commits on one session mint disjoint refs (session lock)", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "race" };
    const plans = [];
    for (let i = 0; i < 6; i++) {
      await insertCaptures(db, {
        ...key,
        captureId: `c${i}`,
        batches: [batch(i, [call(`k${i}`, i + 1), call(`j${i}`, i + 100)])],
      });
      const req = await createFlushRequest(db, { ...key, trigger: "manual" });
      const pending = (await loadPendingCaptures(db, { ...key, cursor: req.cursor })).filter(
        (b) => b.captureId === `c${i}`,
      );
      const plan = summarizeAll(pending, `r${i}`);
      plans.push({ ...key, flushRequestId: req.id, attempt: 1, mintRefs: plan.mint, writes: plan.writes });
    }
    const results = await Promise.all(plans.map((p) => commitFlush(db, p)));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill("committed"));
    const refs = results.flatMap((r) => Object.values(r.refs)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    expect(refs).toEqual(Array.from({ length: 12 }, (_, i) => `t${i + 1}`));
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await getSession(db, key)).toMatchObject({ nextRef: 13, version: 6 });
  });

  it("a plan computed before another flush settled its captures is refused as stale", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "stale" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1)])] });
    const reqA = await createFlushRequest(db, { ...key, trigger: "manual" });
    const reqB = await createFlushRequest(db, { ...key, trigger: "manual" });
    const pending = await loadPendingCaptures(db, { ...key, cursor: reqA.cursor });
    const plan = summarizeAll(pending, "x");
    const a = await commitFlush(db, {
      ...key,
      flushRequestId: reqA.id,
      attempt: 1,
      mintRefs: plan.mint,
      writes: plan.writes,
    });
    const before = await snapshotRows(db);
    const b = await commitFlush(db, {
      ...key,
      flushRequestId: reqB.id,
      attempt: 1,
      mintRefs: plan.mint,
      writes: plan.writes,
    });
    expect(a.status).toBe("committed");
    expect(b).toMatchObject({ status: "stale", conflicts: ["a@1"] });
    expect(await snapshotRows(db)).toEqual(before);
  });

  it("flush metrics: one row per attempt; errors recorded outside commitFlush; older queued requests coalesce", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "metrics" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1)])] });
    const older = await createFlushRequest(db, { ...key, trigger: "message-end" });
    const req = await createFlushRequest(db, { ...key, trigger: "budget", metrics: { largestChainSharePct: 40 } });
    expect(
      await recordFlushMetrics(db, {
        tenantId: "acme",
        flushRequestId: req.id,
        attempt: 1,
        outcome: "error",
        reason: "summarizer-failed",
      }),
    ).toEqual({ inserted: true });
    expect(
      await recordFlushMetrics(db, {
        tenantId: "acme",
        flushRequestId: req.id,
        attempt: 1,
        outcome: "error",
        reason: "summarizer-failed",
      }),
    ).toEqual({ inserted: false });
    const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
    const plan = summarizeAll(pending, "m");
    const res = await commitFlush(db, {
      ...key,
      flushRequestId: req.id,
      attempt: 2,
      mintRefs: plan.mint,
      writes: plan.writes,
    });
    expect(res.written.metricsRow).toBe(true);
    const snap = await snapshotRows(db);
    const rows = (
      snap.flush_metrics as {
        flush_request_id: string;
        attempt: number;
        outcome: string;
        trigger: string;
        metrics: unknown;
      }[]
    ).filter((r) => r.flush_request_id === req.id);
    expect(rows.map((r) => [r.attempt, r.outcome, r.trigger])).toEqual([
      [1, "error", "budget"],
      [2, "summarized", "budget"],
    ]);
    expect(rows[0]!.metrics).toEqual({ largestChainSharePct: 40 });
    expect(await getFlushRequest(db, "acme", older.id)).toMatchObject({ status: "coalesced", coalescedInto: req.id });
    // A late failure report for a committed request does not undo it.
    await recordFlushMetrics(db, {
      tenantId: "acme",
      flushRequestId: req.id,
      attempt: 3,
      outcome: "error",
      settle: "failed",
    });
    expect((await getFlushRequest(db, "acme", req.id))?.status).toBe("committed");
  });

  it("delta since a version carries exactly the later rows, and applying deltas equals the full snapshot", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "delta" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1)])] });
    const f1 = await flushOnce("delta", "d1");
    const atV1 = (await getStateDelta(db, { ...key, since: 0 }))!;
    await insertCaptures(db, {
      ...key,
      captureId: "c2",
      batches: [batch(1, [call("b", 2)]), batch(2, [call("c", 3)])],
    });
    const f2 = await flushOnce("delta", "d2");
    expect(f2.result.version).toBe(f1.result.version + 1);

    const d1 = (await getStateDelta(db, { ...key, since: 0 }))!;
    expect(d1).toMatchObject({ format: "condense.state-delta/1", fromVersion: 0, toVersion: 2 });
    const since1 = (await getStateDelta(db, { ...key, since: 1 }))!;
    expect(since1.records.map((r) => r.key)).toEqual(["b@2", "c@3"]);
    expect(since1.summaries).toHaveLength(2);
    expect(since1.frontier).toMatchObject({ lastAttemptedToolCallId: "c", attemptedBatchCount: 2 });
    expect(since1.stats).toMatchObject({ callCount: 3 });
    const none = (await getStateDelta(db, { ...key, since: 2 }))!;
    expect(none).toMatchObject({ fromVersion: 2, toVersion: 2, records: [], summaries: [], aliases: [], chains: [] });
    expect(none.frontier).toBeUndefined();
    expect(none.stats).toBeUndefined();
    // A client ahead of the server (data reset) gets a full snapshot.
    expect((await getStateDelta(db, { ...key, since: 99 }))!.fromVersion).toBe(0);

    // A client that pulled at v1 and then pulls since 1 mirrors exactly what a fresh full pull gives.
    const mirrorV1 = applyDelta(createState(), atV1);
    if (!mirrorV1.ok) throw new Error(mirrorV1.message);
    const stepwise = applyDelta(mirrorV1.state, since1);
    const full = applyDelta(createState(), d1);
    if (!stepwise.ok || !full.ok) throw new Error("delta refused");
    expect(stepwise.state.version).toBe(2);
    expect([...stepwise.state.records.values()]).toEqual([...full.state.records.values()]);
    expect(stepwise.state.summaries).toEqual(full.state.summaries);
    expect(stepwise.state.frontier).toEqual(full.state.frontier);
    expect(stepwise.state.stats).toEqual(full.state.stats);
    expect(stepwise.state.nextRef).toBe(4);
  });
});

describe.each(testDbKinds())("commitFlush, optimistic path (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  /** What a worker does before its commit: read the captures with the session's commit_seq, reserve refs. */
  async function planned(sessionId: string, requestId: string, tag: string) {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId };
    const loaded = await loadPendingForFlush(db, { ...key, flushRequestId: requestId });
    const plan = summarizeAll(loaded.batches, tag);
    const reserved = await reserveRefs(db, { ...key, flushRequestId: requestId, keys: plan.mint });
    const writes = plan.writes({ groups: reserved.groups, byKey: reserved.byKey, firstRef: 0, nextRef: 0 });
    return { ...key, flushRequestId: requestId, attempt: 1, mintRefs: [], seen: loaded.seen!, writes };
  }

  it("of two runs planned from the same read exactly one applies; the other writes nothing and is stale", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "opt-race" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1), call("b", 2)])] });
    const reqA = await createFlushRequest(db, { ...key, trigger: "manual" });
    const reqB = await createFlushRequest(db, { ...key, trigger: "manual" });
    const a = await planned("opt-race", reqA.id, "a");
    const b = await planned("opt-race", reqB.id, "b");
    expect(a.seen.commitSeq).toBe(b.seen.commitSeq);
    const results = await Promise.all([commitFlush(db, a), commitFlush(db, b)]);
    expect(results.map((r) => r.status).sort()).toEqual(["committed", "stale"]);
    const winner = results[0]!.status === "committed" ? a : b;
    const won = results.find((r) => r.status === "committed")!;
    expect(won).toMatchObject({
      version: 1,
      written: { records: 2, summaries: 1, captures: 2, frontier: true, metricsRow: true },
    });
    const snap = await snapshotRows(db);
    const summaries = (snap.summaries as { session_id: string; id: string }[]).filter(
      (s) => s.session_id === "opt-race",
    );
    expect(summaries.map((s) => s.id)).toEqual([`s-${winner === a ? "a" : "b"}-a@1,b@2`]);
    const metrics = (snap.flush_metrics as { session_id: string; flush_request_id: string }[]).filter(
      (m) => m.session_id === "opt-race",
    );
    expect(metrics.map((m) => m.flush_request_id)).toEqual([winner.flushRequestId]);
    // The winner re-run with its old read returns the stored result and writes nothing.
    const again = await commitFlush(db, winner);
    expect(again).toEqual({ ...won, status: "already-committed" });
    expect(await snapshotRows(db)).toEqual(snap);
  });

  it("any commit after the read (even one touching none of its keys) makes the plan stale; a fresh read commits", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "opt-seq" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1)])] });
    const req1 = await createFlushRequest(db, { ...key, trigger: "manual" });
    expect((await commitFlush(db, await planned("opt-seq", req1.id, "one"))).status).toBe("committed");
    await insertCaptures(db, { ...key, captureId: "c2", batches: [batch(1, [call("c", 3)])] });
    const req2 = await createFlushRequest(db, { ...key, trigger: "manual" });
    const stalePlan = await planned("opt-seq", req2.id, "two");
    // A chain commit of the first request writes no state but is a commit.
    await commitChains(db, { ...key, flushRequestId: req1.id, mintRefs: [], writes: { chains: [], records: [] } });
    const before = await snapshotRows(db);
    const stale = await commitFlush(db, stalePlan);
    expect(stale).toMatchObject({ status: "stale", conflicts: [], version: 1 });
    expect(await snapshotRows(db)).toEqual(before);
    const fresh = await commitFlush(db, await planned("opt-seq", req2.id, "two"));
    // Refs were reserved before summarizing (reserveRefs), so this commit minted none itself.
    expect(fresh).toMatchObject({ status: "committed", version: 2, refs: {}, nextRef: 3 });
    expect((await getStateDelta(db, { ...key, since: 1 }))!.records.map((r) => [r.key, r.shortRef])).toEqual([
      ["c@3", "t2"],
    ]);
    expect(await getSession(db, key)).toMatchObject({ version: 2, nextRef: 3 });
  });

  it("a reservation lost before the commit (database crash: it commits asynchronously) cannot lead to a ref minted twice", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "opt-lost" };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1), call("b", 2)])] });
    const req = await createFlushRequest(db, { ...key, trigger: "manual" });
    const plan = await planned("opt-lost", req.id, "lost");
    // What recovery from a crash before the WAL flush looks like: the counter and the reservation are back.
    await db.execute(sql`update sessions set next_ref = 1 where tenant_id = 'acme' and session_id = 'opt-lost'`);
    await db.execute(sql`update flush_requests set ref_reservation = null where id = ${req.id}`);
    const res = await commitFlush(db, plan);
    expect(res).toMatchObject({ status: "committed", nextRef: 3 });
    expect(await getSession(db, key)).toMatchObject({ nextRef: 3 });
  });
});
