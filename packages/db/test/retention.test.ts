import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import {
  commitFlush,
  createFlushRequest,
  ensureTenant,
  insertCaptures,
  loadPendingCaptures,
  lookupRecordsForQuery,
  recordRecovery,
  runRetention,
  schema,
} from "../src/index.ts";
import { batch, call, summarizeAll } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

const rowsOf = (r: unknown) => ((r as { rows?: unknown[] }).rows ?? (r as unknown[])) as Record<string, unknown>[];

describe.each(testDbKinds())("retention (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
  });
  afterAll(async () => t?.drop());

  /** A session with one settled capture (a committed flush with a metrics row), a stored body, a recovery, and one pending capture. */
  async function seed(sessionId: string) {
    const db = t.handle.db;
    await ensureTenant(db, { id: "acme" });
    const key = { tenantId: "acme", sessionId };
    await insertCaptures(db, { ...key, captureId: "c1", batches: [batch(0, [call("a", 1, "big output")])] });
    const req = await createFlushRequest(db, { ...key, trigger: "manual" });
    const plan = summarizeAll(await loadPendingCaptures(db, { ...key, cursor: req.cursor }), sessionId);
    await commitFlush(db, { ...key, flushRequestId: req.id, attempt: 1, mintRefs: plan.mint, writes: plan.writes });
    await db.execute(
      sql`update tool_call_records set stored_body = 'FULL BODY', stored_bytes = 9, stored_preview = 'FULL' where tenant_id = 'acme' and session_id = ${sessionId}`,
    );
    await recordRecovery(db, { ...key, hits: [{ query: "t1", toolName: "bash", key: "a@1", ref: "t1" }] });
    await insertCaptures(db, { ...key, captureId: "c2", batches: [batch(1, [call("b", 2)])] });
  }

  const age = async (sessionId: string, days: number) => {
    const db = t.handle.db;
    const back = sql`now() - make_interval(days => ${days})`;
    await db.execute(
      sql`update captures set created_at = ${back} where tenant_id = 'acme' and session_id = ${sessionId}`,
    );
    await db.execute(
      sql`update flush_metrics set created_at = ${back} where tenant_id = 'acme' and session_id = ${sessionId}`,
    );
    await db.execute(sql`update recoveries set at = ${back} where tenant_id = 'acme' and session_id = ${sessionId}`);
    await db.execute(
      sql`update sessions set updated_at = ${back}, last_capture_at = ${back} where tenant_id = 'acme' and session_id = ${sessionId}`,
    );
  };

  const counts = async (sessionId: string) => {
    const db = t.handle.db;
    const [r] = rowsOf(
      await db.execute(sql`select
      (select count(*)::int from captures where session_id = ${sessionId} and status <> 'pending') as settled,
      (select count(*)::int from captures where session_id = ${sessionId} and status = 'pending') as pending,
      (select count(*)::int from tool_call_records where session_id = ${sessionId} and stored_body is not null) as bodies,
      (select count(*)::int from tool_call_records where session_id = ${sessionId}) as records,
      (select count(*)::int from flush_metrics where session_id = ${sessionId}) as metrics,
      (select count(*)::int from recoveries where session_id = ${sessionId}) as recoveries`),
    );
    return r;
  };

  it("deletes settled captures, stored bodies, metrics rows and recoveries past their age; keeps pending captures and everything recent", async () => {
    await seed("old");
    await seed("new");
    await age("old", 40);
    await age("new", 2);
    expect(await counts("old")).toEqual({ settled: 1, pending: 1, bodies: 1, records: 1, metrics: 1, recoveries: 1 });
    const policy = { capturesDays: 30, storedBodiesDays: 30, flushMetricsDays: 30, recoveriesDays: 30 };
    const r = await runRetention(t.handle.db, policy);
    expect(r).toEqual({ captures: 1, storedBodies: 1, flushMetrics: 1, recoveries: 1 });
    // the record and its summary stay; only the full body goes, and a recovery falls back to the preview
    expect(await counts("old")).toEqual({ settled: 0, pending: 1, bodies: 0, records: 1, metrics: 0, recoveries: 0 });
    expect(await counts("new")).toEqual({ settled: 1, pending: 1, bodies: 1, records: 1, metrics: 1, recoveries: 1 });
    const [hit] = (await lookupRecordsForQuery(t.handle.db, { tenantId: "acme", sessionId: "old", inputs: ["t1"] }))[0]!
      .hits;
    expect(hit?.record.resultText).not.toBe("FULL BODY");
    // a second run finds nothing more (idempotent)
    expect(await runRetention(t.handle.db, policy)).toEqual({
      captures: 0,
      storedBodies: 0,
      flushMetrics: 0,
      recoveries: 0,
    });
  });

  it("0 days keeps a kind forever, and each kind uses its own age", async () => {
    await seed("mixed");
    await age("mixed", 10);
    const r = await runRetention(t.handle.db, {
      capturesDays: 0,
      storedBodiesDays: 20,
      flushMetricsDays: 5,
      recoveriesDays: 0,
    });
    expect(r).toEqual({ captures: 0, storedBodies: 0, flushMetrics: 1, recoveries: 0 });
    expect(await counts("mixed")).toEqual({ settled: 1, pending: 1, bodies: 1, records: 1, metrics: 0, recoveries: 1 });
  });

  it("deletes in chunks until nothing old is left", async () => {
    const db = t.handle.db;
    await ensureTenant(db, { id: "acme" });
    const sessionId = "bulk";
    await insertCaptures(db, { tenantId: "acme", sessionId, captureId: "c", batches: [batch(0, [call("x", 1)])] });
    // 12 000 settled captures: more than two chunks
    await db.execute(sql`insert into captures (tenant_id, session_id, occurrence_key, capture_id, batch_index, call_index, tool_call_id, tool_name, args, result_text, turn_index, batch_timestamp, status, created_at)
      select 'acme', ${sessionId}, 'k' || g, 'bulk', 0, g, 'id' || g, 'bash', '{}'::jsonb, 'x', 0, 0, 'summarized', now() - interval '100 days' from generate_series(1, 12000) g`);
    const r = await runRetention(db, { capturesDays: 30, storedBodiesDays: 0, flushMetricsDays: 0, recoveriesDays: 0 });
    expect(r.captures).toBe(12000);
    expect(
      rowsOf(
        await db.select({ n: sql<number>`count(*)::int` }).from(schema.captures).where(sql`session_id = ${sessionId}`),
      )[0],
    ).toEqual({ n: 1 });
  });
});
