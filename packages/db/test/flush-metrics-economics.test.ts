/**
 * flush_metrics' cache-economics columns (issue 18 item 5) are generated from the flush request's
 * metrics snapshot, so every path that writes a row (commit, error, empty) fills them; a value of the
 * wrong type or out of range yields null, never a failed insert.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlushRequest, ensureTenant, fleetStatus, getSessionStatus, recordFlushMetrics } from "../src/index.ts";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

describe.each(testDbKinds())("flush_metrics cache economics (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  async function rowFor(
    sessionId: string,
    metrics: Record<string, unknown>,
    outcome: "empty" | "summarized" = "empty",
  ) {
    const db = t.handle.db;
    const req = await createFlushRequest(db, {
      tenantId: "acme",
      sessionId,
      trigger: "roi",
      metrics: { openCycleThinkingTokens: 0, ...metrics },
    });
    await recordFlushMetrics(db, { tenantId: "acme", flushRequestId: req.id, attempt: 1, outcome });
    const r = await db.execute(
      sql`SELECT trigger, expected_cache_write_tokens AS w, expected_cache_read_saved_tokens AS s, agent_model AS m FROM flush_metrics WHERE flush_request_id = ${req.id}`,
    );
    // PGlite answers { rows }, postgres.js an array of rows.
    const rows = Array.isArray(r)
      ? (r as Record<string, unknown>[])
      : (r as unknown as { rows: Record<string, unknown>[] }).rows;
    return rows[0]!;
  }

  it("fills the columns from the snapshot the client sent", async () => {
    const row = await rowFor("s1", {
      expectedCacheWriteTokens: 1234.4,
      expectedCacheReadSavedTokens: 98765,
      agentModel: "anthropic/claude-sonnet-4-5",
    });
    expect(row).toMatchObject({ trigger: "roi", m: "anthropic/claude-sonnet-4-5" });
    expect(Number(row.w)).toBe(1234);
    expect(Number(row.s)).toBe(98765);
  });

  it("a missing, mistyped or absurd value is null and the row is still written", async () => {
    const row = await rowFor("s2", {
      expectedCacheWriteTokens: "lots",
      expectedCacheReadSavedTokens: 1e30,
      agentModel: 7,
    });
    expect(row.w).toBeNull();
    expect(row.s).toBeNull();
    expect(row.m).toBeNull();
    expect((await rowFor("s3", {})).w).toBeNull();
  });

  it("session and fleet status sum the cache writes caused against the reads saved, per model", async () => {
    const m = (w: number, sv: number, model?: string) => ({
      expectedCacheWriteTokens: w,
      expectedCacheReadSavedTokens: sv,
      ...(model ? { agentModel: model } : {}),
    });
    await rowFor("s4", m(100, 1000, "anthropic/claude-sonnet-4-5"), "summarized");
    await rowFor("s4", m(50, 700, "anthropic/claude-sonnet-4-5"), "summarized");
    await rowFor("s4", m(10, 20, "openai/gpt-5"), "summarized");
    await rowFor("s4", m(999, 999, "openai/gpt-5")); // empty: changed nothing, not counted
    const s = await getSessionStatus(t.handle.db, { tenantId: "acme", sessionId: "s4" });
    expect(s?.cacheEconomics).toEqual([
      {
        model: "anthropic/claude-sonnet-4-5",
        flushes: 2,
        expectedCacheWriteTokens: 150,
        expectedCacheReadSavedTokens: 1700,
      },
      { model: "openai/gpt-5", flushes: 1, expectedCacheWriteTokens: 10, expectedCacheReadSavedTokens: 20 },
    ]);
    const f = await fleetStatus(t.handle.db, { tenantId: "acme", windowMinutes: 60 });
    expect(f.cacheEconomics.find((r) => r.model === "anthropic/claude-sonnet-4-5")).toMatchObject({
      flushes: 2,
      expectedCacheWriteTokens: 150,
      expectedCacheReadSavedTokens: 1700,
    });
  });
});
