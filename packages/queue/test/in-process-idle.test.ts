/**
 * The in-process queue's `whenIdle`: it resolves only once every job enqueued before the call (and the
 * follow-up a running job's key parked) has finished, and at once on an idle queue.
 */
import { describe, expect, it } from "vitest";
import { createInProcessQueue } from "../src/index.ts";
import { testJobs } from "./support/test-catalog.ts";

describe("in-process queue: whenIdle", () => {
  it("resolves at once when nothing was enqueued", async () => {
    const q = createInProcessQueue({ catalog: testJobs });
    await q.whenIdle();
    await q.close();
  });

  it("waits for the running job and the follow-up parked behind it", async () => {
    const q = createInProcessQueue({ catalog: testJobs });
    const done: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    q.process(
      async (job) => {
        if (done.length === 0) await gate;
        done.push(String((job.payload as { cursor: number }).cursor));
      },
      { concurrency: 1 },
    );
    await q.enqueue("work", { key: "k", cursor: 1 });
    await new Promise((r) => setImmediate(r));
    // The first run holds the key: this one becomes its follow-up.
    await q.enqueue("work", { key: "k", cursor: 2 });
    let idle = false;
    const waiting = q.whenIdle().then(() => {
      idle = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(done).toEqual(["1", "2"]);
    await q.close();
  });

  it("waits out a retry's backoff", async () => {
    const q = createInProcessQueue({ catalog: testJobs });
    let runs = 0;
    q.process(
      async () => {
        runs++;
        if (runs === 1) throw new Error("first attempt fails");
      },
      { concurrency: 1 },
    );
    await q.enqueue("work", { key: "r", cursor: 1 });
    await q.whenIdle();
    expect(runs).toBe(2);
    await q.close();
  });
});
