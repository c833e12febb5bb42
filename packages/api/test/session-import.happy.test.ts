/**
 * POST /v1/sessions/{id}/imports: another condenser's state (pi-condense's entries) seeds an empty
 * session: records keep their refs, summaries, aliases, the chain gets its block id, stats and the
 * frontier are the imported ones, the ref counter moves past them; the same import again is a no-op;
 * a session with state of its own is refused (409); a malformed import is a 400 naming the field.
 */
import { applyDelta, createState } from "@condense/core";
import { getSession } from "@condense/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";
import { batch, call, capturesBody, commitAllPending } from "@condense/test-support/flush-plan";

const record = (id: string, ts: number, ref: string, summaryId: string) => ({
  key: `${id}@${ts}`,
  toolCallId: id,
  toolName: "bash",
  args: { command: `run ${id}` },
  resultText: `output of ${id}`,
  isError: false,
  turnIndex: 0,
  timestamp: ts + 1,
  resultTimestamp: ts,
  shortRef: ref,
  summaryId,
});
const body = {
  importId: "imp-1",
  source: "pi-condense",
  records: [record("call_1", 100, "t1", "pc_a"), record("call_1", 200, "t2", "pc_b")],
  summaries: [
    {
      id: "pc_a",
      text: "- `t1` one",
      refs: [{ shortId: "t1", toolCallId: "call_1", resultTimestamp: 100 }],
      coverage: ["call_1@100"],
      toolNames: ["bash"],
      turnIndex: 0,
      timestamp: 101,
    },
    {
      id: "pc_b",
      text: "- `t2` two",
      refs: [{ shortId: "t2", toolCallId: "call_1", resultTimestamp: 200 }],
      coverage: ["call_1@200"],
      toolNames: ["bash"],
      turnIndex: 1,
      timestamp: 201,
    },
  ],
  aliases: [{ key: "call_1@300", originalKey: "call_1@100" }],
  chains: [
    {
      startUserTimestamp: 50,
      finalAssistantTimestamp: 250,
      droppedToolCallIds: ["call_1", "call_1"],
      droppedOccurrenceKeys: ["call_1@100", "call_1@200"],
      toolRefs: ["t1", "t2"],
      compressedAt: 260,
      rangeSummaryText: "range",
    },
  ],
  frontier: {
    lastAttemptedToolCallId: "call_1",
    lastAttemptedToolName: "bash",
    lastAttemptedTurnIndex: 2,
    lastAttemptedTimestamp: 301,
    attemptedBatchCount: 1,
    attemptedToolCallCount: 1,
    rawCharCount: 10,
    summaryCharCount: 0,
    outcome: "skipped-deduped",
  },
  stats: {
    totalInputTokens: 10,
    totalOutputTokens: 5,
    totalCost: 0.25,
    callCount: 2,
    chainsCompressed: 1,
    rangesSummarized: 1,
  },
};

describe("session import (app.request)", () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await createHarness();
    t = await h.tenant();
  });
  afterAll(async () => h?.close());

  it("seeds an empty session once, with the imported refs, chain, frontier and stats", async () => {
    const r = await h.json("/v1/sessions/pc/imports", post(t.headers, body));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "imported", blockIds: { "50": "b1" } });
    const again = await h.json("/v1/sessions/pc/imports", post(t.headers, body));
    expect(again.body).toMatchObject({ status: "already-imported", blockIds: { "50": "b1" } });
    const delta = await h.json("/v1/sessions/pc/state?since=0", get(t.headers));
    const applied = applyDelta(createState(), delta.body);
    if (!applied.ok) throw new Error(applied.message);
    const s = applied.state;
    expect(s.keyToRef.get("call_1@100")).toBe("t1");
    expect(s.keyToRef.get("call_1@300")).toBe("t1");
    expect(s.summaries.map((x) => x.id)).toEqual(["pc_a", "pc_b"]);
    expect(s.chains.map((c) => [c.blockId, c.rangeSummaryText])).toEqual([["b1", "range"]]);
    expect(s.frontier).toMatchObject({ lastAttemptedToolCallId: "call_1", outcome: "skipped-deduped" });
    expect(s.stats).toEqual(body.stats);
    // the next ref minted is t3: the counter moved past the imported refs
    expect((await getSession(h.db.db, { tenantId: t.tenantId, sessionId: "pc" }))?.nextRef).toBe(3);
  });

  it("refuses to import over a session's own state, and names a bad field", async () => {
    await h.request("/v1/sessions/own/captures", post(t.headers, capturesBody("c1", [batch(0, [call("a", 1)])])));
    await commitAllPending(h.db.db, { tenantId: t.tenantId, sessionId: "own" });
    const r = await h.json("/v1/sessions/own/imports", post(t.headers, { ...body, importId: "imp-2" }));
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain("already has condensation state");
    const bad = await h.json(
      "/v1/sessions/x/imports",
      post(t.headers, { ...body, records: [{ ...body.records[0], shortRef: "ref-1" }] }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toContain("body.records.0.shortRef");
  });
});
