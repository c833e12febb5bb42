/**
 * The flush processor's scenarios (CAP-FLUSH, AS-10/11/13/14/15/22/24) on PGlite and on Postgres,
 * run through `runFlush` with the deterministic summarizer or a scripted one for failures.
 */
import { describe, expect, it } from "vitest";
import { isCovered, recordsForId } from "@condense/core";
import { getFlushRequest, getStateDelta, lookupRecordsForQuery } from "@condense/db";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { SummarizerFailedError } from "../src/index.ts";
import { batch, call, capture, flushNow, requestFlush, runRequest, T0, TENANT } from "./support/flush-fixtures.ts";
import { scriptedSummarizer } from "./support/scripted-summarizer.ts";
import { captureRows, metricsRows, sessionRow, stateOf } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

describe.each(testDbKinds())("flush processor (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("summarizes pending batches: refs in order, summaries, frontier, settled captures, one metrics row, version bump", async () => {
    const db = suite.db;
    const summarizer = createDeterministicSummarizer();
    const { request, result } = await flushNow(db, summarizer, "basic", [
      batch(0, [call("a", T0 + 1), call("b", T0 + 2)]),
      batch(1, [call("c", T0 + 3)]),
    ]);
    expect(result).toMatchObject({ status: "committed", outcome: "summarized", version: 1, pending: 0 });
    expect(result.refs).toEqual({ [`a@${T0 + 1}`]: "t1", [`b@${T0 + 2}`]: "t2", [`c@${T0 + 3}`]: "t3" });
    const state = await stateOf(db, "basic");
    expect(state.summaries).toHaveLength(2);
    expect(state.summaries[0]!.text).toContain("`t1`");
    expect(state.frontier).toMatchObject({
      lastAttemptedToolCallId: "c",
      attemptedBatchCount: 2,
      attemptedToolCallCount: 3,
      outcome: "summarized",
    });
    expect((await captureRows(db, "basic")).map((c) => c.status)).toEqual(["summarized", "summarized", "summarized"]);
    const metrics = await metricsRows(db, "basic");
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({
      outcome: "summarized",
      trigger: "manual",
      capturedBatches: 2,
      processedBatches: 2,
      attemptedCalls: 3,
      model: "deterministic",
      bodySource: "deterministic",
      workerId: "test-worker",
      flushRequestId: request.id,
      attempt: 1,
    });
    expect(metrics[0]!.metrics).toMatchObject({ frontierGapTokens: 300 });
    expect(metrics[0]!.runMs).toBeGreaterThanOrEqual(0);
    expect(metrics[0]!.fidelityScore).not.toBeNull();
    expect(await sessionRow(db, "basic")).toMatchObject({ version: 1, nextRef: 4 });
    // A re-delivered job after the commit changes nothing and writes no second metrics row.
    const again = await runRequest(db, summarizer, request, { attempt: 1 });
    expect(again.status).toBe("already-committed");
    expect(await metricsRows(db, "basic")).toHaveLength(1);
  });

  it("AS-10: a re-read with identical content (whitespace aside) becomes an alias of t1, with no summarizer call", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer();
    const x = call("read_1", T0 + 10, 1600, { toolName: "read" });
    await flushNow(db, summarizer, "as10", [batch(0, [x])]);
    expect(summarizer.batchCalls).toHaveLength(1);
    const dup = {
      ...x,
      toolCallId: "read_2",
      resultTimestamp: T0 + 20,
      resultText: `${x.resultText.replace(/\n/g, "  \r\n")}\n\n`,
    };
    const { result } = await flushNow(db, summarizer, "as10", [batch(1, [dup])]);
    expect(summarizer.batchCalls).toHaveLength(1);
    expect(result.outcome).toBe("skipped-deduped");
    const state = await stateOf(db, "as10");
    expect(state.aliases.get(`read_2@${T0 + 20}`)).toBe(`read_1@${T0 + 10}`);
    expect(state.keyToRef.get(`read_2@${T0 + 20}`)).toBe("t1");
    expect(state.frontier).toMatchObject({ lastAttemptedToolCallId: "read_2", outcome: "skipped-deduped" });
    expect(recordsForId(state, "read_2")[0]!.record.resultText).toBe(x.resultText);
    const caps = await captureRows(db, "as10");
    expect(caps[1]).toMatchObject({ status: "deduped", statusReason: `duplicate-of:read_1@${T0 + 10}` });
    const metrics = await metricsRows(db, "as10");
    expect(metrics.map((m) => [m.outcome, m.dedupHits])).toEqual([
      ["summarized", 0],
      ["skipped-deduped", 1],
    ]);
  });

  it("AS-11: the same id with different content is two records with two refs; identical outputs inside one flush alias the first", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer();
    await flushNow(db, summarizer, "as11", [batch(0, [call("bash_23", T0 + 1, 1500)])]);
    await flushNow(db, summarizer, "as11", [batch(1, [call("bash_23", T0 + 2, 1700)])]);
    let state = await stateOf(db, "as11");
    expect(state.aliases.size).toBe(0);
    expect([state.keyToRef.get(`bash_23@${T0 + 1}`), state.keyToRef.get(`bash_23@${T0 + 2}`)]).toEqual(["t1", "t2"]);
    // Within one flush (Condense dedups there too; pi-condense summarized both, AS-12).
    const same = call("w1", T0 + 5, 1800);
    await flushNow(db, summarizer, "as11", [
      batch(2, [same]),
      batch(3, [{ ...same, toolCallId: "w2", resultTimestamp: T0 + 6 }]),
    ]);
    state = await stateOf(db, "as11");
    expect(state.aliases.get(`w2@${T0 + 6}`)).toBe(`w1@${T0 + 5}`);
    expect(recordsForId(state, "w2").map((h) => h.record.resultText)).toEqual([same.resultText]);
  });

  it("tenant dedup scope: a duplicate of another session's output gets its own tN and a readable summary, without a model call; recovery works from both sessions", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer();
    const shared = call("r_a", T0 + 1, 2000, { toolName: "read" });
    await flushNow(db, summarizer, "tenantA", [batch(0, [shared])], { dedupScope: "tenant" });
    const n = summarizer.batchCalls.length;
    const { result } = await flushNow(
      db,
      summarizer,
      "tenantB",
      [batch(0, [{ ...shared, toolCallId: "r_b", resultTimestamp: T0 + 9 }])],
      { dedupScope: "tenant" },
    );
    // No model call: session A already condensed this content.
    expect(summarizer.batchCalls.length).toBe(n);
    expect(result.outcome).toBe("summarized");
    const b = await stateOf(db, "tenantB");
    expect(b.aliases.size).toBe(0);
    const own = b.records.get(`r_b@${T0 + 9}`)!;
    expect(own.shortRef).toBe("t1");
    expect(own.summaryId).toBeDefined();
    // Nothing of session A's is copied into B: B's model reads its own summary, naming its own tN.
    expect(b.records.has(`r_a@${T0 + 1}`)).toBe(false);
    const summary = [...b.summaries.values()].find((x) => x.id === own.summaryId)!;
    expect(summary.refs).toEqual([{ shortId: "t1", toolCallId: "r_b", resultTimestamp: T0 + 9 }]);
    expect(summary.text).toContain("`t1`");
    expect(summary.text).toContain("context_tree_query");
    expect(summary.text).toContain(shared.resultText.split("\n")[0]!.slice(0, 40));
    // Recovery from either session returns the original output.
    const [fromB] = await lookupRecordsForQuery(db, { tenantId: TENANT, sessionId: "tenantB", inputs: ["t1"] });
    expect(fromB!.hits.map((h) => h.record.resultText)).toEqual([shared.resultText]);
    const [fromA] = await lookupRecordsForQuery(db, {
      tenantId: TENANT,
      sessionId: "tenantA",
      inputs: [`r_a@${T0 + 1}`],
    });
    expect(fromA!.hits.map((h) => h.record.resultText)).toEqual([shared.resultText]);
    // A later duplicate in B aliases B's own record (session canonical first); still no model call.
    await flushNow(
      db,
      summarizer,
      "tenantB",
      [batch(1, [{ ...shared, toolCallId: "r_b2", resultTimestamp: T0 + 10 }])],
      { dedupScope: "tenant" },
    );
    const b2 = await stateOf(db, "tenantB");
    expect(summarizer.batchCalls.length).toBe(n);
    expect(b2.aliases.get(`r_b2@${T0 + 10}`)).toBe(`r_b@${T0 + 9}`);
    expect(b2.keyToRef.get(`r_b2@${T0 + 10}`)).toBe("t1");
    // Session scope (the default) never looks across sessions.
    await flushNow(db, summarizer, "tenantC", [batch(0, [{ ...shared, toolCallId: "r_c", resultTimestamp: T0 + 12 }])]);
    expect((await stateOf(db, "tenantC")).aliases.size).toBe(0);
  });

  it("AS-13: a trivial batch gets no summarizer call; captures skipped with a reason; frontier skipped-trivial", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer();
    const { result } = await flushNow(db, summarizer, "as13", [batch(0, [call("t", T0 + 1, 400)])]);
    expect(summarizer.batchCalls).toHaveLength(0);
    expect(result.outcome).toBe("skipped-trivial");
    const state = await stateOf(db, "as13");
    expect(state.records.size).toBe(0);
    expect(state.summaries).toHaveLength(0);
    expect(state.frontier?.outcome).toBe("skipped-trivial");
    expect((await captureRows(db, "as13"))[0]).toMatchObject({ status: "skipped", statusReason: "trivial" });
    expect((await metricsRows(db, "as13")).map((m) => m.outcome)).toEqual(["skipped-trivial"]);
    // The skip is coverage the client mirrors (so a rescan never resends it), in a full snapshot and in
    // the delta of the commit that settled it, and not in a later one.
    expect([...state.settled]).toEqual([`t@${T0 + 1}`]);
    expect(isCovered(state, `t@${T0 + 1}`)).toBe(true);
    const version = (await sessionRow(db, "as13")).version;
    expect((await getStateDelta(db, { tenantId: TENANT, sessionId: "as13", since: version - 1 }))?.settled).toEqual([
      `t@${T0 + 1}`,
    ]);
    expect((await getStateDelta(db, { tenantId: TENANT, sessionId: "as13", since: version }))?.settled).toBeUndefined();
  });

  it("AS-14: a summary longer than the batch writes nothing but burns its refs and counts usage; an oversized output is stored", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer({ batch: () => "x".repeat(5000) });
    const { result } = await flushNow(db, summarizer, "as14", [batch(0, [call("big", T0 + 1, 1200)])]);
    expect(result.outcome).toBe("skipped-oversized");
    const state = await stateOf(db, "as14");
    expect(state.records.size).toBe(0);
    expect(state.frontier?.outcome).toBe("skipped-oversized");
    expect(state.stats).toMatchObject({ callCount: 1, totalInputTokens: 100 });
    expect((await sessionRow(db, "as14")).nextRef).toBe(2);
    expect((await captureRows(db, "as14"))[0]).toMatchObject({ status: "skipped", statusReason: "oversized-summary" });
    // CAP-SPILL: an output at or over spillThreshold is stored out of line, with no ref and no LLM call.
    const quiet = scriptedSummarizer();
    const huge = call("huge", T0 + 5, 5000);
    const { result: r2 } = await flushNow(db, quiet, "as14", [batch(1, [huge])], {
      spillThreshold: 4096,
      spillPreviewBytes: 200,
    });
    expect(quiet.batchCalls).toHaveLength(0);
    expect(r2.outcome).toBe("summarized");
    const rec = (await stateOf(db, "as14")).records.get(`huge@${T0 + 5}`)!;
    expect(rec.resultText).toBe("");
    expect(rec.shortRef).toBeUndefined();
    expect(rec.stored?.bytes).toBe(5000);
    expect(rec.stored!.preview.length).toBeLessThanOrEqual(200);
    expect((await captureRows(db, "as14"))[1]).toMatchObject({ status: "stored" });
  });

  it("AS-15: every batch failing records an error row, writes nothing, keeps captures pending; the retry reuses the reserved refs", async () => {
    const db = suite.db;
    const failing = scriptedSummarizer({ batch: () => new Error("stream error: provider down") });
    await capture(db, "as15", [batch(0, [call("p", T0 + 1), call("q", T0 + 2)])]);
    const request = await requestFlush(db, "as15");
    await expect(runRequest(db, failing, request, { attempt: 1 })).rejects.toBeInstanceOf(SummarizerFailedError);
    const state = await stateOf(db, "as15");
    expect(state.records.size + state.summaries.length).toBe(0);
    expect(state.frontier).toBeNull();
    expect(state.version).toBe(0);
    expect((await captureRows(db, "as15")).map((c) => [c.status, c.statusReason])).toEqual([
      ["pending", "summarizer-failed"],
      ["pending", "summarizer-failed"],
    ]);
    expect((await metricsRows(db, "as15")).map((m) => [m.outcome, m.reason, m.attempt])).toEqual([
      ["error", "summarizer-failed", 1],
    ]);
    expect(failing.batchCalls[0]!.refs).toEqual(["t1", "t2"]);
    expect((await getFlushRequest(db, TENANT, request.id))?.status).toBe("queued");

    const working = scriptedSummarizer();
    const retry = await runRequest(db, working, request, { attempt: 2 });
    expect(retry).toMatchObject({ status: "committed", outcome: "summarized", attempt: 2 });
    expect(working.batchCalls[0]!.refs).toEqual(["t1", "t2"]);
    expect((await sessionRow(db, "as15")).nextRef).toBe(3);
    expect((await metricsRows(db, "as15")).map((m) => [m.outcome, m.attempt])).toEqual([
      ["error", 1],
      ["summarized", 2],
    ]);
  });

  it("AS-15: the last attempt settles the request as failed; captures stay pending and visible", async () => {
    const db = suite.db;
    const failing = scriptedSummarizer({ batch: () => new Error("boom") });
    await capture(db, "as15b", [batch(0, [call("p", T0 + 1)])]);
    const request = await requestFlush(db, "as15b");
    await expect(runRequest(db, failing, request, { attempt: 3, maxAttempts: 3 })).rejects.toThrow(/boom/);
    expect((await getFlushRequest(db, TENANT, request.id))?.status).toBe("failed");
    expect((await captureRows(db, "as15b"))[0]).toMatchObject({ status: "pending", statusReason: "summarizer-failed" });
  });

  it("AS-22: A, B, C with B failing commits A only; B and C stay pending; C's usage is not counted", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer({
      batch: (b) =>
        b.toolCalls[0]!.toolCallId === "B" ? new Error("B failed") : `- [[1:bash]] did ${b.toolCalls[0]!.toolCallId}`,
    });
    const { result } = await flushNow(db, summarizer, "as22", [
      batch(0, [call("A", T0 + 1)]),
      batch(1, [call("B", T0 + 2)]),
      batch(2, [call("C", T0 + 3)]),
    ]);
    expect(result).toMatchObject({ status: "committed", outcome: "summarized", pending: 2 });
    expect(summarizer.batchCalls).toHaveLength(3);
    const state = await stateOf(db, "as22");
    expect([...state.records.keys()]).toEqual([`A@${T0 + 1}`]);
    expect(state.frontier).toMatchObject({ lastAttemptedToolCallId: "A", attemptedBatchCount: 1 });
    expect(state.stats.callCount).toBe(1);
    expect((await captureRows(db, "as22")).map((c) => [c.toolCallId, c.status, c.statusReason])).toEqual([
      ["A", "summarized", null],
      ["B", "pending", "summarizer-failed"],
      ["C", "pending", "summarizer-failed"],
    ]);
    const [m] = await metricsRows(db, "as22");
    expect(m).toMatchObject({ outcome: "summarized", processedBatches: 1, capturedBatches: 3, inputTokens: 100 });
    expect(m!.reason).toMatch(/2 call\(s\) left pending/);
    // The next flush picks B and C up; their refs are new numbers (t2, t3 were reserved and burned).
    const ok = scriptedSummarizer();
    await flushNow(db, ok, "as22", []);
    const after = await stateOf(db, "as22");
    expect([after.keyToRef.get(`B@${T0 + 2}`), after.keyToRef.get(`C@${T0 + 3}`)]).toEqual(["t4", "t5"]);
  });

  it("an empty flush records one `empty` row and settles the request", async () => {
    const db = suite.db;
    await capture(db, "empty", [batch(0, [call("e", T0 + 1)])]);
    await flushNow(db, createDeterministicSummarizer(), "empty", []);
    const { request, result } = await flushNow(db, createDeterministicSummarizer(), "empty", []);
    expect(result).toMatchObject({ status: "empty", outcome: "empty" });
    expect((await metricsRows(db, "empty")).map((m) => m.outcome)).toEqual(["summarized", "empty"]);
    expect((await getFlushRequest(db, TENANT, request.id))?.status).toBe("committed");
  });

  it("AS-24: refs survive a restart; a burned number is never handed out again", async () => {
    const summarizer = scriptedSummarizer({
      batch: (b) => (b.toolCalls[0]!.toolCallId === "over" ? "y".repeat(4000) : `- [[1:bash]] ok`),
    });
    await flushNow(suite.db, summarizer, "as24", [
      batch(0, [call("a", T0 + 1)]),
      batch(1, [call("b", T0 + 2)]),
      batch(2, [call("c", T0 + 3)]),
    ]);
    await flushNow(suite.db, summarizer, "as24", [batch(3, [call("over", T0 + 4)])]);
    // Restart: close the database and reopen the same data (what a new worker process sees).
    await suite.reopen();
    const { result } = await flushNow(suite.db, scriptedSummarizer(), "as24", [batch(4, [call("d", T0 + 5)])]);
    expect(result.refs).toEqual({ [`d@${T0 + 5}`]: "t5" });
    const state = await stateOf(suite.db, "as24");
    expect([...state.keyToRef.values()].sort()).toEqual(["t1", "t2", "t3", "t5"]);
  });

  it("protected and already-indexed captures are trimmed and settled as skipped", async () => {
    const db = suite.db;
    const summarizer = scriptedSummarizer();
    const { result } = await flushNow(
      db,
      summarizer,
      "prot",
      [batch(0, [call("keep", T0 + 1), call("secret", T0 + 2, 1500, { toolName: "vault" })])],
      { protectedTools: ["vault"] },
    );
    expect(result.outcome).toBe("summarized");
    expect(summarizer.batchCalls[0]!.batch.toolCalls.map((c) => c.toolCallId)).toEqual(["keep"]);
    expect((await captureRows(db, "prot"))[1]).toMatchObject({ status: "skipped", statusReason: "protected" });
  });
});
