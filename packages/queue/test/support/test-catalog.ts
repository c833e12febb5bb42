/** A catalog for the adapter contract: jobs shaped like flush-session, with short backoffs and timeouts. */
import { z } from "zod";
import { defineJob } from "../../src/index.ts";

const retention = { completedAgeSec: 60, completedCount: 100, failedAgeSec: 60 };

export const testJobs = {
  work: defineJob({
    name: "work",
    payload: z.object({
      key: z.string(),
      cursor: z.number().int(),
      sleepMs: z.number().default(0),
      failTimes: z.number().default(0),
      fatal: z.boolean().default(false),
    }),
    attempts: 3,
    backoff: { type: "fixed", delayMs: 150 },
    timeoutMs: 5000,
    deduplication: { mode: "keep-last-if-active", key: (p) => `work/${p.key}` },
    retention,
  }),
  slow: defineJob({
    name: "slow",
    payload: z.object({ ms: z.number() }),
    attempts: 1,
    backoff: { type: "fixed", delayMs: 10 },
    timeoutMs: 300,
    retention,
  }),
};
export type TestJobs = typeof testJobs;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
