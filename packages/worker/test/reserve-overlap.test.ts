/**
 * The ref reservation runs while the summarizer's model call does (run-flush.ts
 * `reserveWhileSummarizing`): the refs are written into the answer only after the model replies.
 * Checked here on PGlite and Postgres: the reservation is in the database before the model answers,
 * the refs the summary carries are the reserved ones, the reserve stage is not charged for time the
 * model took anyway, and a failing reservation stops the model call and fails the run without
 * writing anything or blaming the summarizer.
 */
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { BatchSummary, Summarizer } from "@condense/summarizer";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { batch, call, capture, requestFlush, runRequest, T0 } from "./support/flush-fixtures.ts";
import { captureRows, metricsRows, sessionRow, stateOf } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

/**
 * The deterministic summarizer behind a model call that takes as long as `gate` (an abort rejects
 * it). Records whether the caller's refs were already settled when the "model" answered.
 */
function gatedSummarizer(gate: (signal: AbortSignal | undefined) => Promise<void>) {
  const inner = createDeterministicSummarizer();
  const seen = { calls: 0, aborted: 0 };
  const summarizer: Summarizer = {
    ...inner,
    async summarizeBatch(b, options): Promise<BatchSummary> {
      seen.calls++;
      try {
        await gate(options.signal);
      } catch (err) {
        seen.aborted++;
        throw err;
      }
      return inner.summarizeBatch(b, options);
    },
  };
  return { summarizer, seen };
}

const until = async (check: () => Promise<boolean>, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe.each(testDbKinds())("ref reservation during the model call (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("reserves while the model thinks; the summary carries the reserved refs; the reserve stage is not charged for the model's time", async () => {
    const db = suite.db;
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const { summarizer } = gatedSummarizer(() => opened);
    await capture(db, "overlap", [batch(0, [call("a", T0 + 1), call("b", T0 + 2)])]);
    const request = await requestFlush(db, "overlap");
    const run = runRequest(db, summarizer, request);
    // The model has not answered, yet the session counter already moved past the two refs.
    await until(async () => (await sessionRow(db, "overlap"))!.nextRef === 3);
    await new Promise((r) => setTimeout(r, 60));
    open();
    const result = await run;
    expect(result).toMatchObject({ status: "committed", outcome: "summarized" });
    expect(result.refs).toEqual({ [`a@${T0 + 1}`]: "t1", [`b@${T0 + 2}`]: "t2" });
    const state = await stateOf(db, "overlap");
    expect(state.summaries[0]!.text).toContain("`t1`");
    expect(state.summaries[0]!.text).toContain("`t2`");
    // ~60+ ms of model time went to the summarize stage, none of it to reserve.
    expect(result.timings!.stages.summarize!).toBeGreaterThanOrEqual(50);
    expect(result.timings!.stages.reserve!).toBeLessThan(50);
  });

  it.runIf(kind === "postgres")(
    "overlaps: a 600 ms reservation and a 300 ms model call take ~600 ms, not 900",
    async () => {
      const db = suite.db;
      // The reservation statement of this session sleeps 600 ms in Postgres (a slow or distant database).
      await db.execute(
        sql.raw(`create or replace function condense_test_slow_refs() returns trigger language plpgsql as $$
      begin if new.session_id = 'slow' and new.next_ref <> old.next_ref then perform pg_sleep(0.6); end if; return new; end $$`),
      );
      await db.execute(
        sql.raw(
          "create trigger condense_test_slow_refs before update on sessions for each row execute function condense_test_slow_refs()",
        ),
      );
      try {
        const { summarizer } = gatedSummarizer(() => new Promise((r) => setTimeout(r, 300)));
        await capture(db, "slow", [batch(0, [call("s1", T0 + 1)])]);
        const request = await requestFlush(db, "slow");
        const result = await runRequest(db, summarizer, request);
        expect(result.refs).toEqual({ [`s1@${T0 + 1}`]: "t1" });
        // The reservation and the model call share one lap of the run's clock, split into its reserve and
        // summarize stages; their sum is that lap's wall time. The reservation lies in it (at least its
        // 600 ms), and overlapped it stays well short of the 900 ms the two take one after the other.
        // Not the run's whole wall time: that also holds its loads and commit, which a loaded machine
        // stretches (579 ms once for a 550 ms bound, with 300 ms each, at load 14 on 2 vCPUs).
        const { reserve = 0, summarize = 0 } = result.timings!.stages;
        expect(reserve + summarize).toBeGreaterThanOrEqual(600);
        expect(reserve + summarize).toBeLessThan(850);
        // The model's 300 ms are the summarize stage's; the rest of the reservation is the reserve stage's.
        expect(summarize).toBeGreaterThanOrEqual(300);
      } finally {
        await db.execute(sql.raw("drop trigger condense_test_slow_refs on sessions"));
      }
    },
  );

  it("a retried run reuses the reservation it made while the model ran", async () => {
    const db = suite.db;
    const { summarizer } = gatedSummarizer(() => Promise.reject(new Error("model down")));
    await capture(db, "retry", [batch(0, [call("r1", T0 + 1)])]);
    const request = await requestFlush(db, "retry");
    await expect(runRequest(db, summarizer, request, { attempt: 1 })).rejects.toThrow();
    expect((await sessionRow(db, "retry"))!.nextRef).toBe(2);
    const ok = await runRequest(db, createDeterministicSummarizer(), request, { attempt: 2 });
    expect(ok.refs).toEqual({ [`r1@${T0 + 1}`]: "t1" });
    expect((await sessionRow(db, "retry"))!.nextRef).toBe(2);
  });

  it("a failing reservation stops the model call and fails the run: nothing written, the summarizer not blamed", async () => {
    const db = suite.db;
    await capture(db, "broken", [batch(0, [call("x", T0 + 1)])]);
    const request = await requestFlush(db, "broken");
    // Any change of this session's ref counter raises, so the reservation statement fails.
    await db.execute(
      sql.raw(`create or replace function condense_test_no_refs() returns trigger language plpgsql as $$
      begin if new.session_id = 'broken' and new.next_ref <> old.next_ref then raise exception 'refs unavailable'; end if; return new; end $$`),
    );
    await db.execute(
      sql.raw(
        "create trigger condense_test_no_refs before update on sessions for each row execute function condense_test_no_refs()",
      ),
    );
    try {
      // the "model" would take 10 s; the failed reservation aborts it
      const { summarizer, seen } = gatedSummarizer(
        (signal) =>
          new Promise<void>((resolve, reject) => {
            const t = setTimeout(resolve, 10_000);
            signal?.addEventListener(
              "abort",
              () => {
                clearTimeout(t);
                reject(signal.reason);
              },
              { once: true },
            );
          }),
      );
      const started = Date.now();
      await expect(runRequest(db, summarizer, request)).rejects.toThrow(/refs unavailable/);
      expect(Date.now() - started).toBeLessThan(5_000);
      await until(async () => seen.aborted === seen.calls && seen.calls === 1);
      expect((await stateOf(db, "broken")).summaries).toHaveLength(0);
      expect((await captureRows(db, "broken")).map((c) => c.status)).toEqual(["pending"]);
      expect((await metricsRows(db, "broken")).filter((m) => m.reason === "summarizer-failed")).toHaveLength(0);
    } finally {
      await db.execute(sql.raw("drop trigger condense_test_no_refs on sessions"));
    }
    // With the database healthy again, the retry goes through.
    const ok = await runRequest(db, createDeterministicSummarizer(), request, { attempt: 2 });
    expect(ok).toMatchObject({ status: "committed", outcome: "summarized" });
    expect(ok.refs).toEqual({ [`x@${T0 + 1}`]: "t1" });
  });
});
