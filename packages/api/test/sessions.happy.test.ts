import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDelta, createState, DEFAULT_SETTINGS } from "@condense/core";
import { createHarness, get, post, type Harness, type TestTenant } from "./support/harness.ts";
import { batch, call, capturesBody, commitAllPending } from "@condense/test-support/flush-plan";

describe("session routes, happy paths (app.request, PGlite, in-process queue)", () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await createHarness();
    t = await h.tenant("acme");
  });
  afterAll(async () => h?.close());

  it("stores captures after commit and treats a retried POST as a no-op", async () => {
    const body = capturesBody("cap-1", [batch(0, [call("a", 1), call("b", 2)]), batch(1, [call("c", 3)])]);
    const first = await h.json("/v1/sessions/s1/captures", post(t.headers, body));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ captureId: "cap-1", accepted: 3, duplicates: 0, maxSeq: expect.any(Number) });
    const again = await h.json("/v1/sessions/s1/captures", post(t.headers, body));
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 3, maxSeq: first.body.maxSeq });
    const status = await h.json("/v1/sessions/s1/status", get(t.headers));
    expect(status.body.captures).toMatchObject({ pending: 3, total: 3 });
  });

  it("accepts a flush with 202, enqueues one cursor job, and is idempotent per flushId", async () => {
    const before = await h.queue.counts();
    const flushId = "6f1c2e5d-4a4f-4e9b-8a2c-3d4e5f6a7b8c";
    const body = {
      trigger: "budget",
      flushId,
      metrics: {
        openCycleThinkingTokens: 12,
        largestChainSharePct: 40,
        frontierGapTokens: 900,
        tokens: 120_000,
        contextWindow: 200_000,
      },
      chains: [
        {
          startUserTimestamp: 10,
          finalAssistantTimestamp: 20,
          middleToolCallIds: ["a", "b"],
          middleOccurrenceKeys: ["a@1", "b@2"],
        },
      ],
      settings: { minBatchChars: 10, myExtension: { keep: true } },
    };
    const r = await h.json("/v1/sessions/s1/flushes", post(t.headers, body));
    expect(r.status).toBe(202);
    const status = await h.json("/v1/sessions/s1/status", get(t.headers));
    expect(r.body).toEqual({ flushId, cursor: status.body.captures.maxSeq, trigger: "budget", created: true });
    expect((await h.queue.counts()).waiting).toBe(before.waiting + 1);

    const retry = await h.json("/v1/sessions/s1/flushes", post(t.headers, body));
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ flushId, created: false });
    // Deduplicated per session: still one waiting job.
    expect((await h.queue.counts()).waiting).toBe(before.waiting + 1);

    // Settings were normalized by core; unknown keys round-trip.
    expect(status.body.settings).toMatchObject({
      minBatchChars: 10,
      myExtension: { keep: true },
      spillThreshold: DEFAULT_SETTINGS.spillThreshold,
    });
    expect(status.body.queuedFlushRequests).toBe(1);
  });

  it("serves versioned state deltas that core's applyDelta consumes", async () => {
    const empty = await h.json("/v1/sessions/s1/state?since=0", get(t.headers));
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ format: "condense.state-delta/1", fromVersion: 0, toVersion: 0, records: [] });

    const version = await commitAllPending(h.db.db, { tenantId: "acme", sessionId: "s1" });
    const full = await h.json("/v1/sessions/s1/state?since=0", get(t.headers));
    expect(full.body.toVersion).toBe(version);
    expect(full.body.records.map((r: { key: string; shortRef: string }) => [r.key, r.shortRef])).toEqual([
      ["a@1", "t1"],
      ["b@2", "t2"],
      ["c@3", "t3"],
    ]);
    const applied = applyDelta(createState(), full.body);
    expect(applied.ok && applied.state.refToKey.get("t2")).toBe("b@2");

    const none = await h.json(`/v1/sessions/s1/state?since=${version}`, get(t.headers));
    expect(none.body).toMatchObject({ fromVersion: version, toVersion: version, records: [], summaries: [] });
    // A mirror ahead of the server resyncs from a full snapshot.
    const ahead = await h.json(`/v1/sessions/s1/state?since=${version + 50}`, get(t.headers));
    expect(ahead.body.fromVersion).toBe(0);
    expect(ahead.body.records).toHaveLength(3);
  });

  it("AS-44: a reused id returns every occurrence chronologically; tN and occurrence keys resolve 1:1", async () => {
    const key = { tenantId: "acme", sessionId: "as44" };
    await h.request(
      "/v1/sessions/as44/captures",
      post(
        t.headers,
        capturesBody("c", [
          batch(0, [call("bash_23", 1150, "first run")]),
          batch(1, [call("bash_23", 2150, "second run"), call("read_7", 3000, "only once")]),
        ]),
      ),
    );
    await commitAllPending(h.db.db, key);

    const both = await h.json("/v1/sessions/as44/query", post(t.headers, { toolCallIds: ["bash_23"] }));
    expect(both.status).toBe(200);
    expect(both.body.hits.map((x: { label: string }) => x.label)).toEqual(["bash_23@1150", "bash_23@2150"]);
    expect(both.body.text).toContain("## toolRef: bash_23@1150");
    expect(both.body.text.indexOf("first run")).toBeLessThan(both.body.text.indexOf("second run"));

    const one = await h.json("/v1/sessions/as44/query", post(t.headers, { toolCallIds: ["bash_23@2150"] }));
    expect(one.body.hits).toHaveLength(1);
    expect(one.body.hits[0]).toMatchObject({ key: "bash_23@2150", resultText: "second run" });

    const ref = await h.json("/v1/sessions/as44/query", post(t.headers, { toolCallIds: ["t1"] }));
    expect(ref.body.hits.map((x: { key: string }) => x.key)).toEqual(["bash_23@1150"]);

    const single = await h.json("/v1/sessions/as44/query", post(t.headers, { toolCallIds: ["read_7", "nope"] }));
    expect(single.body.hits[0].label).toBe("read_7");
    expect(single.body.text).toContain("## toolRef: read_7\n");
    expect(single.body.notFound).toEqual(["nope"]);
    expect(single.body.text).toContain("## toolRef: nope\n(not in the Condense index");

    // Every hit is recorded as a recovery.
    const status = await h.json("/v1/sessions/as44/status", get(t.headers));
    expect(status.body.recoveries).toBe(2 + 1 + 1 + 1);
  });

  it("AS-45: legacy records are labelled without a fake timestamp; a dedup alias returns the original's content", async () => {
    await h.request(
      "/v1/sessions/as45/captures",
      post(
        t.headers,
        capturesBody("c", [
          batch(0, [call("bash_23", undefined, "legacy body")], 1000),
          batch(1, [call("bash_23", 2150, "timed body")], 2000),
        ]),
      ),
    );
    await commitAllPending(h.db.db, { tenantId: "acme", sessionId: "as45" });
    const legacy = await h.json("/v1/sessions/as45/query", post(t.headers, { toolCallIds: ["bash_23"] }));
    expect(legacy.body.hits.map((x: { label: string; legacy: boolean }) => [x.label, x.legacy])).toEqual([
      ["bash_23", true],
      ["bash_23@2150", false],
    ]);
    expect(legacy.body.text).toContain("## toolRef: bash_23\nOccurrence: legacy (no resultTimestamp)");

    await h.request(
      "/v1/sessions/as45b/captures",
      post(
        t.headers,
        capturesBody("c", [
          batch(0, [call("bash_23", 1150, "same output")]),
          batch(1, [call("bash_23", 9150, "same output")]),
        ]),
      ),
    );
    await commitAllPending(
      h.db.db,
      { tenantId: "acme", sessionId: "as45b" },
      { aliases: [{ key: "bash_23@9150", originalKey: "bash_23@1150" }] },
    );
    const alias = await h.json("/v1/sessions/as45b/query", post(t.headers, { toolCallIds: ["bash_23"] }));
    expect(alias.body.hits.map((x: { label: string; resultText: string }) => [x.label, x.resultText])).toEqual([
      ["bash_23@1150", "same output"],
      ["bash_23@9150", "same output"],
    ]);
  });

  it("pages stored large bodies through the query (byte-exact, every cut names the next call), never in the delta", async () => {
    const big = "line\n".repeat(30_000);
    await h.request(
      "/v1/sessions/big/captures",
      post(t.headers, capturesBody("c", [batch(0, [call("huge", 5, big)])])),
    );
    await commitAllPending(
      h.db.db,
      { tenantId: "acme", sessionId: "big" },
      { stored: { "huge@5": { preview: "line\nline" } } },
    );
    const delta = await h.json("/v1/sessions/big/state", get(t.headers));
    expect(delta.body.records[0]).toMatchObject({
      resultText: "",
      stored: { bytes: big.length, preview: "line\nline" },
    });
    const q = await h.json("/v1/sessions/big/query", post(t.headers, { toolCallIds: ["huge"] }));
    expect(q.body.hits[0]).toMatchObject({ stored: true, offset: 0, nextOffset: 10_000, totalChars: big.length });
    // The first page: 2,000 lines, and the call that returns the next page.
    expect(q.body.hits[0].resultText).toBe("line\n".repeat(2000));
    expect(
      q.body.text.endsWith(
        '\n[Output truncated: characters 0-10000 of 150000 shown. Next page: call context_tree_query with {"toolCallIds":["huge"],"offset":10000}]',
      ),
    ).toBe(true);
    const pages: string[] = [q.body.hits[0].resultText];
    let next: number | null = q.body.hits[0].nextOffset;
    while (next !== null) {
      const p = await h.json(
        "/v1/sessions/big/query",
        post(t.headers, { toolCallIds: ["huge"], offset: next, limit: 5000, maxBytes: 1024 * 1024 }),
      );
      expect(p.status).toBe(200);
      pages.push(p.body.hits[0].resultText);
      next = p.body.hits[0].nextOffset;
    }
    expect(pages.join("")).toBe(big);
    expect(pages).toHaveLength(1 + Math.ceil(28_000 / 5000));
  });

  it("reports session status: counters, reclaim, summarizer cost and the last flushes", async () => {
    const s = await h.json("/v1/sessions/s1/status?flushes=5", get(t.headers));
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({
      sessionId: "s1",
      records: 3,
      summaries: 2,
      captures: { summarized: 3, pending: 0 },
    });
    expect(s.body.reclaim.rawChars).toBeGreaterThan(0);
    // the plan bills 0.001 per batch; s1 was flushed once, over two batches
    expect(s.body.summarizer.totalCost).toBeCloseTo(0.002, 6);
    expect(s.body.lastFlushes[0]).toMatchObject({ outcome: "summarized", trigger: "manual", attempt: 1 });
  });

  it("lists the tenant's sessions with cursor pagination that visits each once", async () => {
    const other = await h.tenant();
    for (const id of ["p1", "p2", "p3", "p4", "p5"]) {
      await h.request(
        `/v1/sessions/${id}/captures`,
        post(other.headers, capturesBody("c", [batch(0, [call(`x-${id}`, 1)])])),
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { status: number; body: { sessions: { sessionId: string }[]; nextCursor: string | null } } =
        await h.json(`/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ""}`, get(other.headers));
      expect(r.status).toBe(200);
      seen.push(...r.body.sessions.map((x) => x.sessionId));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
  });

  it("reports fleet status: outcomes in the window, dedup hit rate and queue depth", async () => {
    const f = await h.json("/v1/fleet/status?minutes=60", get(t.headers));
    expect(f.status).toBe(200);
    expect(f.body.windowMinutes).toBe(60);
    expect(f.body.flushes.byOutcome.summarized).toBeGreaterThanOrEqual(4);
    expect(f.body.dedup.hits).toBe(1);
    expect(f.body.dedup.hitRate).toBeGreaterThan(0);
    expect(f.body.queue).toMatchObject({ kind: "in-process", waiting: expect.any(Number), workers: null });
    expect(f.body.fallback).toBeNull();
  });
});
