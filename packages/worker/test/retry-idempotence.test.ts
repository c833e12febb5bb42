/**
 * Exactly-once effect under at-least-once delivery, in process: a run that dies at any crash point
 * (simulated by a hook that throws there; "in-commit" throws inside the commit transaction) and is
 * then re-run leaves exactly the rows a clean run leaves (normalized: no timestamps, worker ids,
 * attempt numbers). The multi-process SIGKILL version lives in test/integration.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { DbHandle } from "@condense/db";
import { CRASH_POINTS, type CrashPoint, type FlushHooks } from "../src/index.ts";
import { batch, call, capture, requestFlush, runRequest, setupTenant, T0 } from "./support/flush-fixtures.ts";
import { dumpRows } from "@condense/test-support/row-dump";
import { scriptedSummarizer } from "./support/scripted-summarizer.ts";
import { createTestDatabase, openMigrated, testDbKinds, type TestDatabase } from "@condense/test-support/test-db";

class SimulatedCrash extends Error {}

const chains = [
  // Uncovered (all trivial): backfilled at chain time.
  {
    startUserTimestamp: T0 + 10,
    finalAssistantTimestamp: T0 + 90,
    middleToolCallIds: ["t0"],
    middleOccurrenceKeys: [`t0@${T0 + 20}`],
  },
  // Covered by two summaries: fused.
  {
    startUserTimestamp: T0 + 100,
    finalAssistantTimestamp: T0 + 900,
    middleToolCallIds: ["s1", "s2"],
    middleOccurrenceKeys: [`s1@${T0 + 200}`, `s2@${T0 + 300}`],
  },
];

async function scenario(handle: DbHandle, hooks?: FlushHooks): Promise<void> {
  const db = handle.db;
  await setupTenant(db);
  await capture(
    db,
    "sess",
    [
      batch(0, [call("t0", T0 + 20, 300)]),
      batch(1, [call("s1", T0 + 200)]),
      batch(2, [call("s2", T0 + 300)]),
      batch(3, [{ ...call("s1", T0 + 200), toolCallId: "dup", resultTimestamp: T0 + 400 }]),
    ],
    "cap-1",
  );
  // "dup" repeats s1's output: a within-flush alias.
  const request = await requestFlush(db, "sess", { settings: { chainCompression: { rollingWindow: 0 } }, chains });
  const summarizer = scriptedSummarizer({ range: () => "fused body" });
  let attempt = 1;
  for (;;) {
    try {
      await runRequest(db, summarizer, request, { attempt, ...(hooks ? { hooks } : {}) });
      return;
    } catch (err) {
      if (!(err instanceof SimulatedCrash) || attempt > 5) throw err;
      attempt++;
    }
  }
}

function crashOnceAt(point: CrashPoint): FlushHooks {
  let fired = false;
  return {
    reached(p) {
      if (p === point && !fired) {
        fired = true;
        throw new SimulatedCrash(`crash at ${p}`);
      }
    },
  };
}

describe.each(testDbKinds())("retried runs leave the rows of a clean run (%s)", (kind) => {
  const open: { db: TestDatabase; handle: DbHandle }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.handle.close();
      await o.db.drop();
    }
  });
  async function fresh() {
    const db = await createTestDatabase(kind, { inMemory: true });
    const handle = await openMigrated(db.url);
    open.push({ db, handle });
    return handle;
  }

  it.each(CRASH_POINTS)("crash at %s", async (point) => {
    const clean = await fresh();
    await scenario(clean);
    const crashed = await fresh();
    await scenario(crashed, crashOnceAt(point));
    const a = await dumpRows(clean.db);
    const b = await dumpRows(crashed.db);
    expect(b).toEqual(a);
    // Sanity: the scenario really wrote records, an alias, chains and one metrics row.
    expect(a.tool_call_records!.length).toBe(3);
    expect(a.dedup_aliases!.length).toBe(0 + 1);
    expect(a.chains!.length).toBe(2);
    expect(a.flush_metrics!.length).toBe(1);
  });
});
