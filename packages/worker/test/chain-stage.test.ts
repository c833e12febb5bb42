/**
 * Chain compression after a flush (AS-25, AS-35..38, grace deferral) on PGlite and Postgres: the
 * request carries the client's closed chains; the worker compresses the eligible ones.
 */
import { describe, expect, it, vi } from "vitest";
import { DETERMINISTIC_BODY_HEADER, recordsForId } from "@condense/core";
import { batch, call, capture, flushNow, requestFlush, runRequest, T0 } from "./support/flush-fixtures.ts";
import { scriptedSummarizer } from "./support/scripted-summarizer.ts";
import { chainRows, diagnosticRows, metricsRows, stateOf } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

// Every read of a session's whole state (every record with its original text) is counted.
const stateReads = vi.hoisted(() => ({ count: 0 }));
vi.mock("@condense/db", async (importOriginal) => {
  const db = await importOriginal<typeof import("@condense/db")>();
  return {
    ...db,
    getStateDelta: (...args: Parameters<typeof db.getStateDelta>) => {
      stateReads.count++;
      return db.getStateDelta(...args);
    },
  };
});

/** A closed chain as the client reports it: start user, the middles' results, the closing reply. */
function chain(n: number, middles: { id: string; ts: number }[], extra: Record<string, unknown> = {}) {
  return {
    startUserTimestamp: T0 + 100_000 * n,
    finalAssistantTimestamp: T0 + 100_000 * n + 90_000,
    middleToolCallIds: middles.map((m) => m.id),
    middleOccurrenceKeys: middles.map((m) => `${m.id}@${m.ts}`),
    ...extra,
  };
}
const at = (n: number, k: number) => T0 + 100_000 * n + 1000 * (k + 1);

describe.each(testDbKinds())("chain stage (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("AS-25: four summarized chains with K=3 compress the oldest, reusing its summary", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const batches = [0, 1, 2, 3].map((n) => batch(n, [call(`c${n}`, at(n, 0))]));
    const chains = [0, 1, 2, 3].map((n) => chain(n, [{ id: `c${n}`, ts: at(n, 0) }]));
    const { result } = await flushNow(db, s, "as25", batches, {}, chains);
    expect(result.chains).toMatchObject({ status: "committed", compressed: 1, blockIds: { [String(T0)]: "b1" } });
    const rows = await chainRows(db, "as25");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      blockId: "b1",
      startUserTimestamp: T0,
      toolRefs: ["t1"],
      bodySource: "concat",
      rangeSummaryText: null,
      compressedAt: expect.any(Number),
    });
    expect(s.rangeCalls).toHaveLength(0); // one summary: no fusion
    const state = await stateOf(db, "as25");
    expect(state.stats.chainsCompressed).toBe(1);
    expect(state.chains.map((c) => c.blockId)).toEqual(["b1"]);
  });

  it("AS-35/36: an all-trivial chain is backfilled from its capture rows (refs minted) with the deterministic body; a re-run adds nothing", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const middles = [
      { id: "ls", ts: at(0, 0) },
      { id: "cat", ts: at(0, 1) },
    ];
    await capture(db, "as35", [
      batch(0, [
        call("ls", middles[0]!.ts, 300),
        call("cat", middles[1]!.ts, 200, { toolName: "read", args: { path: "a.ts" } }),
      ]),
    ]);
    const request = await requestFlush(db, "as35", {
      settings: { chainCompression: { rollingWindow: 0 } },
      chains: [chain(0, middles)],
    });
    const result = await runRequest(db, s, request);
    expect(result.outcome).toBe("skipped-trivial");
    expect(s.batchCalls.length + s.rangeCalls.length).toBe(0);
    const state = await stateOf(db, "as35");
    const recs = [...state.records.values()];
    expect(recs.map((r) => [r.key, r.shortRef, r.backfilled, r.turnIndex])).toEqual([
      [`ls@${middles[0]!.ts}`, "t1", true, -1],
      [`cat@${middles[1]!.ts}`, "t2", true, -1],
    ]);
    expect(recordsForId(state, "t2")[0]!.record.resultText).toHaveLength(200);
    const [entry] = await chainRows(db, "as35");
    expect(entry).toMatchObject({ blockId: "b1", bodySource: "deterministic", toolRefs: ["t1", "t2"] });
    expect(entry!.rangeSummaryText!.split("\n")).toEqual([
      DETERMINISTIC_BODY_HEADER,
      "Calls: 2",
      "Tools: bash x1, read x1",
      `Span: ${new Date(middles[0]!.ts).toISOString()} -> ${new Date(middles[1]!.ts).toISOString()} (1s)`,
      `First: bash {"command":"run ls"}`,
      `Last: read {"path":"a.ts"}`,
      "Refs: t1, t2",
    ]);
    // Backfilled records never become dedup canonicals.
    expect(state.canonicalByHash.size).toBe(0);
    const again = await runRequest(db, s, request, { attempt: 2 });
    expect(again.status).toBe("already-committed");
    expect((await stateOf(db, "as35")).records.size).toBe(2);
    expect(await chainRows(db, "as35")).toHaveLength(1);
    expect(await metricsRows(db, "as35")).toHaveLength(1);
  });

  it("AS-37: an uncovered chain without capturable middles is skipped with a backfill-empty diagnostic; an all-protected one silently", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const chains = [
      chain(0, [{ id: "gone", ts: at(0, 0) }]),
      chain(1, [{ id: "vault1", ts: at(1, 0) }], { protectedToolCallIds: ["vault1"] }),
    ];
    const { result } = await flushNow(
      db,
      s,
      "as37",
      [batch(5, [call("x", T0 + 9_000_000, 100)])],
      { chainCompression: { rollingWindow: 0 } },
      chains,
    );
    expect(result.chains).toMatchObject({ compressed: 0, skippedChains: 2 });
    expect(await chainRows(db, "as37")).toHaveLength(0);
    const diags = await diagnosticRows(db, "as37");
    expect(diags.map((d) => [d.kind, d.dedupKey, d.detail])).toEqual([["backfill-empty", String(T0), "middles=1"]]);
  });

  it("AS-38: two summaries covering a chain are fused by one call; a failing fusion still compresses with the concatenation", async () => {
    const db = suite.db;
    const s = scriptedSummarizer({ range: (texts) => `Fused range of ${texts.length} summaries.` });
    const m = [
      { id: "f1", ts: at(0, 0) },
      { id: "f2", ts: at(0, 1) },
    ];
    const { result } = await flushNow(
      db,
      s,
      "as38",
      [batch(0, [call("f1", m[0]!.ts)]), batch(1, [call("f2", m[1]!.ts)])],
      { chainCompression: { rollingWindow: 0 } },
      [chain(0, m)],
    );
    expect(result.chains).toMatchObject({ compressed: 1, fused: 1 });
    expect(s.rangeCalls).toHaveLength(1);
    expect(s.rangeCalls[0]).toHaveLength(2);
    expect((await chainRows(db, "as38"))[0]).toMatchObject({
      bodySource: "llm",
      rangeSummaryText: "Fused range of 2 summaries.",
      toolRefs: ["t1", "t2"],
    });
    expect((await stateOf(db, "as38")).stats).toMatchObject({ rangesSummarized: 1, chainsCompressed: 1, callCount: 3 });

    const failing = scriptedSummarizer({ range: () => new Error("fusion down") });
    const m2 = [
      { id: "g1", ts: at(0, 0) },
      { id: "g2", ts: at(0, 1) },
    ];
    const r2 = await flushNow(
      db,
      failing,
      "as38b",
      [batch(0, [call("g1", m2[0]!.ts)]), batch(1, [call("g2", m2[1]!.ts)])],
      { chainCompression: { rollingWindow: 0 } },
      [chain(0, m2)],
    );
    expect(r2.result.chains).toMatchObject({ compressed: 1, fused: 0, fusionFailures: 1 });
    expect((await chainRows(db, "as38b"))[0]).toMatchObject({ bodySource: "concat", rangeSummaryText: null });
  });

  it("grace: a chain with a recovery still in grace is deferred without promoting another chain", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const chains = [0, 1, 2].map((n) =>
      chain(n, [{ id: `g${n}`, ts: at(n, 0) }], n === 0 ? { graceKeys: [`g0@${at(0, 0)}`] } : {}),
    );
    const { result } = await flushNow(
      db,
      s,
      "grace",
      [0, 1, 2].map((n) => batch(n, [call(`g${n}`, at(n, 0))])),
      { chainCompression: { rollingWindow: 1 } },
      chains,
    );
    expect(result.chains?.blockIds).toEqual({ [String(T0 + 100_000)]: "b1" });
  });

  it("a flush whose chains all sit inside the rolling window decides so without reading the whole state", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const chains = [0, 1].map((n) => chain(n, [{ id: `w${n}`, ts: at(n, 0) }]));
    const batches = [0, 1].map((n) => batch(n, [call(`w${n}`, at(n, 0))]));
    stateReads.count = 0;
    const { result } = await flushNow(db, s, "window", batches, { chainCompression: { rollingWindow: 2 } }, chains);
    expect(result.chains?.status).toBe("nothing-eligible");
    expect(stateReads.count).toBe(0);
    // One chain past the window: the state is read once, and the oldest chain compressed.
    const three = [...chains, chain(2, [{ id: "w2", ts: at(2, 0) }])];
    const flushThree = async () =>
      runRequest(
        db,
        s,
        await requestFlush(db, "window", {
          settings: { chainCompression: { rollingWindow: 2 } },
          chains: three,
          trigger: "roi",
        }),
      );
    const again = await flushThree();
    expect(again.chains).toMatchObject({ status: "committed", compressed: 1 });
    expect(stateReads.count).toBe(1);
    // Compressed now: the same chains leave nothing eligible, again without the read.
    const done = await flushThree();
    expect(done.chains?.status).toBe("nothing-eligible");
    expect(stateReads.count).toBe(1);
  });

  it("compression is off when the session disables it", async () => {
    const db = suite.db;
    const { result } = await flushNow(
      db,
      scriptedSummarizer(),
      "nochains",
      [batch(0, [call("n0", at(0, 0))])],
      { chainCompression: { enabled: false, rollingWindow: 0 } },
      [chain(0, [{ id: "n0", ts: at(0, 0) }])],
    );
    expect(result.chains?.status).toBe("skipped");
    expect(await chainRows(db, "nochains")).toHaveLength(0);
  });

  it("a `roi` flush with nothing pending compresses the chains it carries; a manual one does not (CAP-CHAIN-2)", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    const middles = [{ id: "r0", ts: at(0, 0) }];
    // The chain's result was summarized by an earlier flush (which carried no chains).
    await flushNow(db, s, "roichain", [batch(0, [call("r0", middles[0]!.ts)])]);
    const settings = { chainCompression: { rollingWindow: 0 } };
    const manual = await runRequest(
      db,
      s,
      await requestFlush(db, "roichain", { settings, chains: [chain(0, middles)], trigger: "manual" }),
    );
    expect(manual.status).toBe("empty");
    expect(manual.chains).toBeUndefined();
    expect(await chainRows(db, "roichain")).toHaveLength(0);
    const roi = await runRequest(
      db,
      s,
      await requestFlush(db, "roichain", { settings, chains: [chain(0, middles)], trigger: "roi" }),
    );
    expect(roi.status).toBe("empty");
    expect(roi.chains).toMatchObject({ status: "committed", compressed: 1 });
    expect((await chainRows(db, "roichain")).map((c) => c.startUserTimestamp)).toEqual([T0]);
    expect((await stateOf(db, "roichain")).chains).toHaveLength(1);
  });
});
