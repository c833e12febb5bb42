/**
 * The raw statements kept on the flush path (the `<table>.sql.ts` modules over statement.ts), each
 * run on PGlite and on Postgres: named parameters compile to the drivers' positional ones, values
 * (int8, timestamptz, jsonb, arrays) come back the same from both, the driver transaction commits
 * and rolls back, and each statement's repository answers what the query builder would.
 * COMMIT_FLUSH (both paths) and the request inserts are exercised by commit-flush.test.ts and
 * flush-request-for-session.test.ts on both drivers too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentHash } from "@condense/core";
import {
  commitFlush,
  createFlushRequest,
  ensureTenant,
  findCanonicalByHash,
  getSession,
  getTenant,
  insertCaptures,
  loadFlushRun,
  recordFlushMetrics,
  reserveRefs,
} from "../src/index.ts";
import { inTransaction, runStatement, statement } from "../src/statement.ts";
import { batch, call } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

describe("statement(): named parameters to positional ones", () => {
  it("numbers names in order of first use, reuses a repeated name, leaves casts and literals alone", () => {
    const st = statement<{ a: string; b: number }>(
      "select :a::text, :b, 'x:y' as lit, :a = :a::text as same, now()::date",
    );
    expect(st.text).toBe("select $1::text, $2, 'x:y' as lit, $1 = $1::text as same, now()::date");
    expect(st.names).toEqual(["a", "b"]);
  });
});

describe.each(testDbKinds())("kept raw statements (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  it("binds named values (repeated, jsonb, arrays) and refuses a missing one", async () => {
    const st = statement<{ n: number; doc: string; list: string[] }>(
      "select :n::integer + :n::integer as twice, (:doc::jsonb) -> 'k' as k, cardinality(:list::text[]) as len",
    );
    const [row] = await runStatement(t.handle.db, st, {
      n: 21,
      doc: JSON.stringify({ k: [1, 2] }),
      list: ["a", "b", "c"],
    });
    expect(row).toEqual({ twice: 42, k: [1, 2], len: 3 });
    await expect(runStatement(t.handle.db, st, { n: 1, doc: "{}" } as never)).rejects.toThrow(/:list is missing/);
  });

  it("inTransaction commits, and rolls back when its callback throws", async () => {
    const insert = statement<{ id: string }>("insert into tenants (id, name) values (:id, :id)");
    await inTransaction(t.handle.db, (conn) => runStatement(conn, insert, { id: "tx-kept" }));
    await expect(
      inTransaction(t.handle.db, async (conn) => {
        await runStatement(conn, insert, { id: "tx-dropped" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await getTenant(t.handle.db, "tx-kept")).not.toBeNull();
    expect(await getTenant(t.handle.db, "tx-dropped")).toBeNull();
  });

  it("FLUSH_RUN: the request with its attempt and reservation, the pending captures, indexed keys, canonicals, the session", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "run" };
    const hash = contentHash("bash", "same text");
    // An earlier flush left a record "old@1" whose content hash a new capture repeats.
    const first = await createFlushRequest(db, { ...key, trigger: "manual" });
    await commitFlush(db, {
      ...key,
      flushRequestId: first.id,
      attempt: 1,
      mintRefs: [],
      writes: {
        records: [
          {
            key: "old@1",
            toolCallId: "old",
            toolName: "bash",
            args: {},
            resultText: "same text",
            isError: false,
            turnIndex: 0,
            timestamp: 10,
            resultTimestamp: 1,
            shortRef: "t1",
            contentHash: hash,
          },
        ],
        summaries: [],
        aliases: [],
        frontier: null,
        captures: [],
        metrics: { outcome: "empty" },
      },
    });
    await insertCaptures(db, {
      ...key,
      captureId: "c1",
      batches: [
        batch(1, [call("old", 1, "same text"), call("new", 2, "same text")]),
        batch(2, [call("x", 3, "unique")]),
      ],
    });
    const request = await createFlushRequest(db, { ...key, trigger: "budget", metrics: { m: 1 } });
    await insertCaptures(db, { ...key, captureId: "c2", batches: [batch(3, [call("late", 4)])] });
    await recordFlushMetrics(db, { tenantId: "acme", flushRequestId: request.id, attempt: 3, outcome: "error" });
    await reserveRefs(db, { ...key, flushRequestId: request.id, keys: [["x@3"]], known: {} });

    const { loaded, pending } = await loadFlushRun(db, { ...key, flushRequestId: request.id, queueAttempt: 1 });
    expect(loaded?.request).toMatchObject({ id: request.id, trigger: "budget", metrics: { m: 1 }, status: "queued" });
    expect(loaded?.request.cursor).toBe(request.cursor);
    expect(loaded?.request.requestedAt).toBeInstanceOf(Date);
    expect(loaded?.request.requestedAt.getTime()).toBe(request.requestedAt.getTime());
    expect(loaded?.attempt).toBe(4);
    expect(Object.keys(loaded?.refReservation ?? {})).toEqual(["x@3"]);
    expect(pending.batches.map((b) => b.toolCalls.map((c) => c.occurrenceKey))).toEqual([["old@1", "new@2"], ["x@3"]]);
    expect([...pending.indexed]).toEqual(["old@1"]);
    expect(pending.canonicalHints.get(hash)).toEqual({
      sessionKey: "old@1",
      tenantKey: "old@1",
      tenantSession: "run",
      tenantPresent: true,
    });
    expect(pending.seen).toEqual({ commitSeq: 1, stats: (await getSession(db, key))?.stats });

    const unknown = await loadFlushRun(db, {
      ...key,
      flushRequestId: "00000000-0000-4000-8000-000000000000",
      queueAttempt: 1,
    });
    expect(unknown.loaded).toBeNull();
    const noSession = await loadFlushRun(db, {
      tenantId: "acme",
      sessionId: "none",
      flushRequestId: request.id,
      queueAttempt: 1,
    });
    expect(noSession).toMatchObject({ loaded: null, pending: { batches: [], seen: null } });
  });

  it("RESERVE_KNOWN: the fast path reserves; a stale `known` falls back to the locked path, keeping earlier refs", async () => {
    const db = t.handle.db;
    const key = { tenantId: "acme", sessionId: "reserve" };
    const request = await createFlushRequest(db, { ...key, trigger: "manual" });
    const a = await reserveRefs(db, { ...key, flushRequestId: request.id, keys: [["a@1", "b@2"]], known: {} });
    expect(a).toMatchObject({ groups: [["t1", "t2"]], minted: 2, nextRef: 3 });
    // The caller's view is stale ({} while a@1 and b@2 are reserved): the statement changes nothing
    // (its counter update is conditioned on the reservation) and the locked path decides.
    const b = await reserveRefs(db, { ...key, flushRequestId: request.id, keys: [["a@1", "c@3"]], known: {} });
    expect(b.groups).toEqual([["t1", "t3"]]);
    expect(b.minted).toBe(1);
    // With the current reservation the fast path applies again.
    const c = await reserveRefs(db, {
      ...key,
      flushRequestId: request.id,
      keys: [["d@4"]],
      known: { "a@1": "t1", "b@2": "t2", "c@3": "t3" },
    });
    expect(c).toMatchObject({ groups: [["t4"]], minted: 1, nextRef: 5 });
    expect((await getSession(db, key))?.nextRef).toBe(5);
  });

  it("SESSION_CANONICALS / TENANT_CANONICALS: first record per hash, with presence in a session", async () => {
    const db = t.handle.db;
    const hash = contentHash("bash", "same text");
    const session = await findCanonicalByHash(db, { tenantId: "acme", sessionId: "run", hashes: [hash, "absent"] });
    expect([...session.keys()]).toEqual([hash]);
    expect(session.get(hash)).toMatchObject({
      sessionId: "run",
      record: { key: "old@1", shortRef: "t1" },
      storedBody: null,
    });
    expect(session.get(hash)?.presentInSession).toBeUndefined();
    const here = await findCanonicalByHash(db, { tenantId: "acme", sessionId: null, hashes: [hash], presentIn: "run" });
    expect(here.get(hash)).toMatchObject({ sessionId: "run", presentInSession: true });
    const elsewhere = await findCanonicalByHash(db, {
      tenantId: "acme",
      sessionId: null,
      hashes: [hash],
      presentIn: "other",
    });
    expect(elsewhere.get(hash)?.presentInSession).toBe(false);
    const otherTenant = await findCanonicalByHash(db, { tenantId: "nobody", sessionId: null, hashes: [hash] });
    expect(otherTenant.size).toBe(0);
  });
});
