/**
 * getStateDelta in one statement (state-delta.sql.ts), on PGlite and on Postgres: for a session with
 * records (one stored aside), summaries, a dedup alias, a frontier, chains, stats moving and skipped
 * captures settled by a commit that changed nothing else, across several versions, every `since`
 * (0, each version, fractional, negative, beyond the version) gives the delta the per-table reads
 * give (test/support/state-delta-by-table.ts); an unknown session is null.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitChains,
  commitFlush,
  createFlushRequest,
  ensureTenant,
  getSession,
  getStateDelta,
  insertCaptures,
  loadPendingCaptures,
} from "../src/index.ts";
import { batch, call, summarizeAll } from "@condense/test-support/flush-plan";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";
import { stateDeltaByTable } from "./support/state-delta-by-table.ts";

describe.each(testDbKinds())("getStateDelta in one statement (%s)", (kind) => {
  let t: TestDb;
  const key = { tenantId: "acme", sessionId: "delta" };
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  async function flush(
    captureId: string,
    batches: Parameters<typeof insertCaptures>[1]["batches"],
    tag: string,
    opts?: Parameters<typeof summarizeAll>[2],
  ) {
    const db = t.handle.db;
    await insertCaptures(db, { ...key, captureId, batches });
    const req = await createFlushRequest(db, { ...key, trigger: "manual" });
    const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
    return { req, plan: summarizeAll(pending, tag, opts) };
  }

  it("gives the per-table delta for every since, across versions", async () => {
    const db = t.handle.db;
    const versions: number[] = [0];
    const check = async () => {
      const v = (await getSession(db, key))!.version;
      versions.push(v);
      for (const since of [...new Set(versions), v + 5, -1, 0.5, v - 0.5]) {
        const expected = await stateDeltaByTable(db, { ...key, since });
        expect(await getStateDelta(db, { ...key, since }), `since ${since} at version ${v}`).toEqual(expected);
      }
    };
    expect(await getStateDelta(db, { ...key, since: 0 })).toBeNull();

    // 1: records (one stored aside), summaries, a dedup alias, the frontier.
    const one = await flush(
      "c1",
      [batch(0, [call("a", 1, "alpha"), call("b", 2, "beta")]), batch(1, [call("dup", 3, "alpha")])],
      "f1",
      { aliases: [{ key: "dup@3", originalKey: "a@1" }], stored: { "b@2": { preview: "be" } } },
    );
    await commitFlush(db, {
      ...key,
      flushRequestId: one.req.id,
      attempt: 1,
      mintRefs: one.plan.mint,
      writes: one.plan.writes,
    });
    await check();

    // 2: a commit that settles a skipped capture and changes no state.
    const two = await flush("c2", [batch(2, [call("big", 4, "huge")])], "f2");
    await commitFlush(db, {
      ...key,
      flushRequestId: two.req.id,
      attempt: 1,
      mintRefs: [["big@4"]],
      writes: () => ({
        records: [],
        summaries: [],
        aliases: [],
        frontier: null,
        captures: [{ key: "big@4", status: "skipped", reason: "oversized" }],
        metrics: { outcome: "skipped-oversized" },
      }),
    });
    await check();

    // 3: another flush, then chains (with a backfilled record).
    const three = await flush("c3", [batch(3, [call("c", 5, "gamma")])], "f3");
    await commitFlush(db, {
      ...key,
      flushRequestId: three.req.id,
      attempt: 1,
      mintRefs: three.plan.mint,
      writes: three.plan.writes,
    });
    await check();
    await commitChains(db, {
      ...key,
      flushRequestId: three.req.id,
      mintRefs: [["late@7"]],
      writes: (m: { groups: string[][] }) => ({
        chains: [
          {
            startUserTimestamp: 100,
            finalAssistantTimestamp: 200,
            droppedToolCallIds: ["a", "b"],
            droppedOccurrenceKeys: ["a@1", "b@2"],
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
            args: { path: "x", nested: { n: null } },
            resultText: "late",
            isError: false,
            turnIndex: -1,
            timestamp: 7,
            resultTimestamp: 7,
            shortRef: m.groups[0]![0]!,
          },
        ],
        stats: { rangesSummarized: 1 },
        diagnostics: [],
      }),
    });
    await check();

    const full = (await getStateDelta(db, { ...key, since: 0 }))!;
    expect(full.records.map((r) => r.key)).toEqual(["a@1", "b@2", "c@5", "late@7"]);
    expect(full.records[1]).toMatchObject({ key: "b@2", resultText: "", stored: { bytes: 4, preview: "be" } });
    expect(full.records[3]!.args).toEqual({ path: "x", nested: { n: null } });
    expect(full.aliases).toEqual([{ key: "dup@3", originalKey: "a@1" }]);
    expect(full.chains.map((c) => c.blockId)).toEqual(["b1", "b2"]);
    expect(full.settled).toEqual(["big@4"]);
    expect(full.frontier).not.toBeNull();
    expect(full.stats).toBeDefined();
    expect(await getStateDelta(db, { tenantId: "other", sessionId: "delta", since: 0 })).toBeNull();
  });
});
