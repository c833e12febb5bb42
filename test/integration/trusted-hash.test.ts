/**
 * The service computes what it trusts (issue 17 item 7): a client's `contentHash` never decides
 * dedup or identity. Two captures that claim the same hash for different texts are stored and
 * summarized apart, and each recovers its own original; two identical texts that claim different
 * hashes are still deduplicated, because the hash is the service's, computed from the stored text.
 * Through the API and the flush job, on PGlite and on real Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { contentHash } from "@condense/core";
import { schema } from "@condense/db";
import { dbKinds, startService, type ServiceUnderTest } from "./support/api-and-worker.ts";

const T0 = 1_700_000_000_000;
const call = (id: string, ts: number, text: string, claimed: string) => ({
  toolCallId: id,
  toolName: "bash",
  args: { command: id },
  resultText: text,
  isError: false,
  resultTimestamp: ts,
  contentHash: claimed,
});
const batch = (turn: number, calls: unknown[]) => ({
  turnIndex: turn,
  timestamp: T0 + turn * 1000,
  assistantText: `turn ${turn}`,
  toolCalls: calls,
});
const lines = (word: string) => `${word} output line\n`.repeat(200);

describe.each(dbKinds())("client content hashes are not trusted (%s)", (kind) => {
  let svc: ServiceUnderTest;
  beforeAll(async () => {
    svc = await startService(kind);
  });
  afterAll(async () => svc?.close());
  const aliasesOf = (sessionId: string) =>
    svc.handle.db
      .select({ key: schema.dedupAliases.key, originalKey: schema.dedupAliases.originalKey })
      .from(schema.dedupAliases)
      .where(and(eq(schema.dedupAliases.tenantId, svc.tenantId), eq(schema.dedupAliases.sessionId, sessionId)));

  it("colliding claimed hashes with different texts stay two originals, each recovered verbatim", async () => {
    const first = lines("alpha");
    const second = lines("omega");
    const collide = "0".repeat(40);
    for (const [captureId, c] of [
      ["c1", call("a1", T0 + 1, first, collide)],
      ["c2", call("b2", T0 + 2, second, collide)],
    ] as const) {
      const r = await svc.post("/v1/sessions/hash1/captures", {
        captureId,
        batches: [batch(captureId === "c1" ? 0 : 1, [c])],
      });
      expect(r.status).toBe(200);
      expect(r.body.accepted).toBe(1);
    }
    const stored = await svc.handle.db
      .select({ hash: schema.captures.contentHash })
      .from(schema.captures)
      .where(and(eq(schema.captures.tenantId, svc.tenantId), eq(schema.captures.sessionId, "hash1")))
      .orderBy(asc(schema.captures.seq));
    expect(stored.map((r) => r.hash)).toEqual([contentHash("bash", first), contentHash("bash", second)]);

    const result = await svc.flush("hash1", { minBatchChars: 0 });
    expect(result.outcome).toBe("summarized");
    expect(await aliasesOf("hash1")).toEqual([]);
    for (const [key, text] of [
      [`a1@${T0 + 1}`, first],
      [`b2@${T0 + 2}`, second],
    ] as const) {
      const q = await svc.post("/v1/sessions/hash1/query", { toolCallIds: [key] });
      expect(q.status).toBe(200);
      expect(q.body.hits).toHaveLength(1);
      expect(q.body.hits[0].resultText).toBe(text);
    }
  });

  it("identical texts that claim different hashes are still one canonical and an alias", async () => {
    const same = lines("same");
    await svc.post("/v1/sessions/hash2/captures", {
      captureId: "c1",
      batches: [batch(0, [call("x1", T0 + 1, same, "a".repeat(40))])],
    });
    await svc.post("/v1/sessions/hash2/captures", {
      captureId: "c2",
      batches: [batch(1, [call("y2", T0 + 2, same, "b".repeat(40))])],
    });
    await svc.flush("hash2", { minBatchChars: 0 });
    expect(await aliasesOf("hash2")).toEqual([{ key: `y2@${T0 + 2}`, originalKey: `x1@${T0 + 1}` }]);
    const q = await svc.post("/v1/sessions/hash2/query", { toolCallIds: [`y2@${T0 + 2}`] });
    expect(q.body.hits[0].resultText).toBe(same);
  });

  it("tenant-scope dedup across sessions uses the service hash too", async () => {
    const mine = lines("mine");
    const theirs = lines("theirs");
    const claimed = "c".repeat(40);
    await svc.post("/v1/sessions/hash3a/captures", {
      captureId: "c1",
      batches: [batch(0, [call("m1", T0 + 1, mine, claimed)])],
    });
    await svc.flush("hash3a", { minBatchChars: 0, dedupScope: "tenant" });
    await svc.post("/v1/sessions/hash3b/captures", {
      captureId: "c1",
      batches: [batch(0, [call("n1", T0 + 5, theirs, claimed)])],
    });
    await svc.flush("hash3b", { minBatchChars: 0, dedupScope: "tenant" });
    const q = await svc.post("/v1/sessions/hash3b/query", { toolCallIds: [`n1@${T0 + 5}`] });
    expect(q.body.hits).toHaveLength(1);
    expect(q.body.hits[0].resultText).toBe(theirs);
  });
});
