/**
 * The requeue sweeper's list of chain stages that never finished: committed requests carrying chains
 * without a chains commit, after a flush that persisted a frontier, or a `roi` flush whose chain stage
 * runs with nothing pending (the client asked for it for its chains). An empty manual flush's chains
 * are never compressed (CAP-CHAIN-2), so it is not listed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlushRequest, ensureTenant, listUnfinishedChainStages, recordFlushMetrics } from "../src/index.ts";
import { createTestDb, testDbKinds, type TestDb } from "@condense/test-support/test-db";

const chain = {
  startUserTimestamp: 1,
  finalAssistantTimestamp: 9,
  middleToolCallIds: ["c1"],
  middleOccurrenceKeys: ["c1@2"],
};

describe.each(testDbKinds())("unfinished chain stages (%s)", (kind) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(kind);
    await ensureTenant(t.handle.db, { id: "acme" });
  });
  afterAll(async () => t?.drop());

  it("lists an empty `roi` flush that carries chains, not an empty manual one", async () => {
    const db = t.handle.db;
    const ids: Record<string, string> = {};
    for (const trigger of ["roi", "manual"]) {
      const req = await createFlushRequest(db, {
        tenantId: "acme",
        sessionId: `s-${trigger}`,
        trigger,
        metrics: { openCycleThinkingTokens: 0 },
        chains: [chain],
      });
      await recordFlushMetrics(db, {
        tenantId: "acme",
        flushRequestId: req.id,
        attempt: 1,
        outcome: "empty",
        settle: "committed",
      });
      ids[trigger] = req.id;
    }
    const listed = await listUnfinishedChainStages(db, { olderThan: new Date(Date.now() + 60_000) });
    const listedIds = listed.map((r) => r.id);
    expect(listedIds).toContain(ids.roi);
    expect(listedIds).not.toContain(ids.manual);
  });
});
