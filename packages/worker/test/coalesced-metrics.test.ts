/**
 * Every flush request accounted (issue 17 item 6): requests that the queue folded into a later run
 * (keep-last-if-active dedup overwrote their job) get a `coalesced` flush_metrics row with their own
 * trigger when the later run commits, so per-trigger counts count requests, not only runs. Also
 * when the covering run had nothing to write (an `empty` settle), and a late duplicate run of a
 * coalesced request adds no second row.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { batch, call, capture, requestFlush, runRequest, T0 } from "./support/flush-fixtures.ts";
import { metricsRows } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

describe.each(testDbKinds())("coalesced flush requests get a metrics row (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("the commit of the newest request writes one `coalesced` row per older queued request, with its trigger", async () => {
    const db = suite.db;
    const summarizer = createDeterministicSummarizer();
    await capture(db, "co1", [batch(0, [call("a", T0 + 1)])]);
    const older = await requestFlush(db, "co1", { trigger: "budget" });
    const middle = await requestFlush(db, "co1", { trigger: "delta" });
    const newest = await requestFlush(db, "co1", { trigger: "message-end" });
    const result = await runRequest(db, summarizer, newest);
    expect(result.status).toBe("committed");
    const rows = await metricsRows(db, "co1");
    expect(rows.map((r) => [r.flushRequestId, r.trigger, r.outcome, r.attempt]).sort()).toEqual(
      [
        [middle.id, "delta", "coalesced", 0],
        [newest.id, "message-end", "summarized", 1],
        [older.id, "budget", "coalesced", 0],
      ].sort(),
    );
    expect(rows.find((r) => r.flushRequestId === older.id)!.reason).toBe(`coalesced-into:${newest.id}`);
    // A late run of a coalesced request (its job was re-delivered) writes nothing more.
    const late = await runRequest(db, summarizer, older, { attempt: 2 });
    expect(late.status).toBe("coalesced");
    expect(await metricsRows(db, "co1")).toHaveLength(3);
  });

  it("an empty run that settles the newest request coalesces the older ones with rows too", async () => {
    const db = suite.db;
    const summarizer = createDeterministicSummarizer();
    const older = await requestFlush(db, "co2", { trigger: "budget" });
    const newest = await requestFlush(db, "co2", { trigger: "manual" });
    expect((await runRequest(db, summarizer, newest)).status).toBe("empty");
    const rows = await metricsRows(db, "co2");
    expect(rows.map((r) => [r.flushRequestId, r.outcome]).sort()).toEqual(
      [
        [newest.id, "empty"],
        [older.id, "coalesced"],
      ].sort(),
    );
  });

  it.each(["empty", "committed"] as const)(
    "a request made earlier in the same millisecond still counts as older (%s run)",
    async (status) => {
      // Stored timestamps have microseconds; a request read back into JS has milliseconds. With the
      // older request 0.3 ms before the newest inside one millisecond, a comparison with the JS Date
      // (cut to .000) calls it newer and leaves it queued, with no row.
      const db = suite.db;
      const session = `co-ms-${status}`;
      if (status === "committed") await capture(db, session, [batch(0, [call("a", T0 + 1)])]);
      const older = await requestFlush(db, session, { trigger: "budget" });
      const newest = await requestFlush(db, session, { trigger: "manual" });
      await db.execute(
        sql`update flush_requests set requested_at = date_trunc('milliseconds', now()) + case when id = ${older.id}::uuid
          then interval '300 microseconds' else interval '600 microseconds' end
          where id in (${older.id}::uuid, ${newest.id}::uuid)`,
      );
      expect((await runRequest(db, createDeterministicSummarizer(), newest)).status).toBe(status);
      const rows = await metricsRows(db, session);
      expect(rows.find((r) => r.flushRequestId === older.id)?.outcome).toBe("coalesced");
    },
  );
});
