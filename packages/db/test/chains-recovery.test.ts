import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitChains,
  commitFlush,
  createFlushRequest,
  ensureTenant,
  findCanonicalByHash,
  getSession,
  getSessionStatus,
  getStateDelta,
  insertCaptures,
  loadPendingCaptures,
  lookupRecordsForQuery,
  recordDiagnostics,
  recordRecovery,
} from "../src/index.ts";
import { batch, call, summarizeAll } from "@condense/test-support/flush-plan";
import { snapshotRows } from "./support/snapshot.ts";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

describe.each(testDbKinds())("chains, dedup canonicals and recovery (%s)", (kind) => {
  let t: TestDb;
  const key = { tenantId: "acme", sessionId: "s1" };
  let flushId = "";
  beforeAll(async () => {
    t = await createTestDb(kind);
    const db = t.handle.db;
    await ensureTenant(db, { id: "acme" });
    // x is reused: two occurrences; big@4 is stored out of line; dup@5 is a dedup alias of a@1.
    await insertCaptures(db, {
      ...key,
      captureId: "c1",
      batches: [batch(0, [call("a", 1, "same"), call("x", 2)]), batch(1, [call("x", 3, "second x")])],
    });
    await insertCaptures(db, {
      ...key,
      captureId: "c2",
      batches: [batch(2, [call("big", 4, "B".repeat(100)), call("dup", 5, "same")])],
    });
    const req = await createFlushRequest(db, { ...key, trigger: "manual" });
    flushId = req.id;
    const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
    const plan = summarizeAll(pending.slice(0, 2), "f");
    const res = await commitFlush(db, {
      ...key,
      flushRequestId: req.id,
      attempt: 1,
      mintRefs: plan.mint,
      writes: (m) => {
        const w = plan.writes(m);
        w.records.push({
          key: "big@4",
          toolCallId: "big",
          toolName: "bash",
          args: {},
          resultText: "",
          isError: false,
          turnIndex: 2,
          timestamp: 1,
          resultTimestamp: 4,
          contentHash: "hash:big",
          stored: { bytes: 100, preview: "BBB" },
          storedBody: "B".repeat(100),
        });
        w.aliases.push({ key: "dup@5", originalKey: "a@1" });
        w.captures.push(
          { key: "big@4", status: "stored" },
          { key: "dup@5", status: "deduped", reason: "content-hash" },
        );
        return w;
      },
    });
    expect(res.status).toBe("committed");
  });
  afterAll(async () => t?.drop());

  it("recovery resolves refs, reused ids, aliases and stored bodies like the core state does", async () => {
    const db = t.handle.db;
    const answers = await lookupRecordsForQuery(db, { ...key, inputs: ["t1", "x", "dup", "big", "nope", "dup@5"] });
    const by = Object.fromEntries(answers.map((a) => [a.input, a.hits]));
    expect(by.t1!.map((h) => [h.label, h.record.key, h.ref])).toEqual([["t1", "a@1", "t1"]]);
    expect(by.x!.map((h) => [h.label, h.record.resultText])).toEqual([
      ["x@2", "output of x"],
      ["x@3", "second x"],
    ]);
    expect(by.dup!.map((h) => [h.label, h.record.resultText, h.ref])).toEqual([["dup", "same", "t1"]]);
    expect(by["dup@5"]![0]!.record.key).toBe("a@1");
    expect(by.big![0]!.record.resultText).toBe("B".repeat(100));
    expect(by.nope).toEqual([]);
    // The delta never carries the stored body.
    const delta = await getStateDelta(db, { ...key, since: 0 });
    expect(delta!.records.find((r) => r.key === "big@4")).toMatchObject({
      resultText: "",
      stored: { bytes: 100, preview: "BBB" },
    });
    expect(await recordRecovery(db, { ...key, hits: [{ query: "t1", toolName: "bash", key: "a@1", ref: "t1" }] })).toBe(
      1,
    );
    expect((await getSessionStatus(db, key))!.recoveries).toBe(1);
  });

  it("canonicals: first record per hash, session or tenant scope", async () => {
    const db = t.handle.db;
    await insertCaptures(db, {
      tenantId: "acme",
      sessionId: "s2",
      captureId: "c",
      batches: [batch(0, [call("q", 9, "same")])],
    });
    const session = await findCanonicalByHash(db, { tenantId: "acme", sessionId: "s2", hashes: ["hash:same"] });
    expect(session.size).toBe(0);
    const tenant = await findCanonicalByHash(db, {
      tenantId: "acme",
      sessionId: null,
      hashes: ["hash:same", "hash:big", "hash:none"],
    });
    expect(tenant.get("hash:same")).toMatchObject({ sessionId: "s1", record: { key: "a@1", shortRef: "t1" } });
    expect(tenant.get("hash:big")?.storedBody).toBe("B".repeat(100));
    expect(tenant.has("hash:none")).toBe(false);
  });

  it("commitChains issues block ids once, backfills with fresh refs, and is idempotent", async () => {
    const db = t.handle.db;
    const before = await getSession(db, key);
    const input = {
      ...key,
      flushRequestId: flushId,
      mintRefs: [["late@7"]],
      writes: (m: { groups: string[][] }) => ({
        chains: [
          {
            startUserTimestamp: 100,
            finalAssistantTimestamp: 200,
            droppedToolCallIds: ["a", "x"],
            droppedOccurrenceKeys: ["a@1", "x@2"],
            toolRefs: ["t1", "t2"],
            compressedAt: 300,
          },
          {
            startUserTimestamp: 400,
            finalAssistantTimestamp: 500,
            droppedToolCallIds: ["late"],
            toolRefs: m.groups[0]!,
            compressedAt: 600,
            rangeSummaryText: "Deterministic chain compression",
            bodySource: "deterministic" as const,
          },
        ],
        records: [
          {
            key: "late@7",
            toolCallId: "late",
            toolName: "read",
            args: {},
            resultText: "late",
            isError: false,
            turnIndex: -1,
            timestamp: 7,
            resultTimestamp: 7,
            shortRef: m.groups[0]![0]!,
          },
        ],
        stats: { rangesSummarized: 1 },
        diagnostics: [{ kind: "backfill-empty", dedupKey: "999", detail: "middles=2" }],
      }),
    };
    const res = await commitChains(db, input);
    expect(res).toMatchObject({
      status: "committed",
      blockIds: { "100": "b1", "400": "b2" },
      refs: { "late@7": `t${before!.nextRef}` },
      skipped: [],
    });
    const snap = await snapshotRows(db);
    expect((await commitChains(db, input)).status).toBe("already-committed");
    expect(await snapshotRows(db)).toEqual(snap);
    const after = await getSession(db, key);
    expect(after).toMatchObject({ nextBlock: 3, version: before!.version + 1, nextRef: before!.nextRef + 1 });
    expect(after!.stats).toMatchObject({ chainsCompressed: 2, rangesSummarized: 1 });
    const delta = await getStateDelta(db, { ...key, since: before!.version });
    expect(delta!.chains.map((c) => [c.blockId, c.bodySource ?? null])).toEqual([
      ["b1", null],
      ["b2", "deterministic"],
    ]);
    expect(delta!.records).toEqual([expect.objectContaining({ key: "late@7", backfilled: true, turnIndex: -1 })]);
    // A later compression of an already-compressed chain is skipped, never re-issued.
    const req2 = await createFlushRequest(db, { ...key, trigger: "compact" });
    const again = await commitChains(db, {
      ...key,
      flushRequestId: req2.id,
      mintRefs: [],
      writes: {
        chains: [
          {
            startUserTimestamp: 100,
            finalAssistantTimestamp: 200,
            droppedToolCallIds: [],
            toolRefs: [],
            compressedAt: 1,
          },
        ],
        records: [],
      },
    });
    expect(again).toMatchObject({ blockIds: {}, skipped: [100], version: after!.version });
    expect((await getSessionStatus(db, key))!.diagnostics).toEqual({ "backfill-empty": 1 });
    expect(
      await recordDiagnostics(db, {
        ...key,
        reports: [
          { kind: "backfill-empty", dedupKey: "999" },
          { kind: "orphan-sweep", dedupKey: "abc" },
        ],
      }),
    ).toBe(1);
  });
});
