/**
 * AS-53 as the service does it: the chain stage runs after the flush commit, so a chain write that
 * fails never undoes the flush and never adds a second flush-metrics row; the retried job finds the
 * flush committed and finishes the chain stage.
 */
import { describe, expect, it } from "vitest";
import type { CrashPoint } from "../src/index.ts";
import { batch, call, capture, requestFlush, runRequest, T0 } from "./support/flush-fixtures.ts";
import { scriptedSummarizer } from "./support/scripted-summarizer.ts";
import { chainRows, metricsRows, stateOf } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

const at = (n: number) => T0 + 100_000 * n + 1000;
const chain = (n: number) => ({
  startUserTimestamp: T0 + 100_000 * n,
  finalAssistantTimestamp: T0 + 100_000 * n + 90_000,
  middleToolCallIds: [`c${n}`],
  middleOccurrenceKeys: [`c${n}@${at(n)}`],
});

describe.each(testDbKinds())("chain write failure (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("AS-53: a chain-entry write that throws during a message-end flush leaves exactly one `summarized` metrics row; the retry compresses", async () => {
    const db = suite.db;
    const s = scriptedSummarizer();
    await capture(
      db,
      "as53",
      [0, 1, 2, 3].map((n) => batch(n, [call(`c${n}`, at(n))])),
    );
    const request = await requestFlush(db, "as53", { trigger: "message-end", chains: [0, 1, 2, 3].map(chain) });
    let failed = false;
    const hooks = {
      reached(point: CrashPoint) {
        if (point === "in-chain-commit" && !failed) {
          failed = true;
          throw new Error("chain append failed");
        }
      },
    };
    await expect(runRequest(db, s, request, { attempt: 1, hooks })).rejects.toThrow("chain append failed");
    expect(await chainRows(db, "as53")).toHaveLength(0);
    expect((await stateOf(db, "as53")).summaries).toHaveLength(4);
    const again = await runRequest(db, s, request, { attempt: 2, hooks });
    expect(again.status).toBe("already-committed");
    expect((await chainRows(db, "as53")).map((c) => c.blockId)).toEqual(["b1"]);
    const rows = await metricsRows(db, "as53");
    expect(rows.map((r) => [r.trigger, r.outcome])).toEqual([["message-end", "summarized"]]);
  });
});
