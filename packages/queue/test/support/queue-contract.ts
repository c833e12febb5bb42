/**
 * The behaviour both JobQueue adapters must share: per-key serialization with parallelism across
 * keys, keep-last-if-active with a cursor payload, retries with backoff, timeouts, graceful close.
 */
import { afterEach, describe, expect, it } from "vitest";
import { NonRetryableJobError, type JobQueue, type JobRun } from "../../src/index.ts";
import { sleep, until, type TestJobs } from "./test-catalog.ts";

type Run = { key: string; cursor: number; attempt: number; start: number; end: number };

export function describeJobQueueContract(
  label: string,
  make: () => Promise<JobQueue<TestJobs>>,
  opts: { skip?: boolean } = {},
) {
  describe.skipIf(opts.skip)(`JobQueue contract: ${label}`, () => {
    const open: JobQueue<TestJobs>[] = [];
    afterEach(async () => {
      for (const q of open.splice(0)) await q.close(100);
    });
    const create = async () => {
      const q = await make();
      open.push(q);
      return q;
    };

    /** A handler that records runs and tracks how many run at once, per key and overall. */
    function recorder() {
      const runs: Run[] = [];
      const activeByKey = new Map<string, number>();
      let active = 0;
      let maxActive = 0;
      let maxPerKey = 0;
      const handler = async (job: JobRun<TestJobs>) => {
        if (job.name !== "work") return;
        const p = job.payload;
        const n = (activeByKey.get(p.key) ?? 0) + 1;
        activeByKey.set(p.key, n);
        maxPerKey = Math.max(maxPerKey, n);
        maxActive = Math.max(maxActive, ++active);
        const start = Date.now();
        try {
          await sleep(p.sleepMs);
          if (p.fatal) throw new NonRetryableJobError("bad session");
          if (job.attempt <= p.failTimes) throw new Error(`planned failure ${job.attempt}`);
        } finally {
          activeByKey.set(p.key, (activeByKey.get(p.key) ?? 1) - 1);
          active--;
          runs.push({ key: p.key, cursor: p.cursor, attempt: job.attempt, start, end: Date.now() });
        }
      };
      return { runs, handler, stats: () => ({ maxActive, maxPerKey }) };
    }

    it("serializes one key while different keys run in parallel", async () => {
      const q = await create();
      const r = recorder();
      q.process(r.handler, { concurrency: 8 });
      for (let round = 0; round < 4; round++) {
        for (const key of ["s1", "s2", "s3"]) await q.enqueue("work", { key, cursor: round, sleepMs: 120 });
        await sleep(40);
      }
      await until(
        () => ["s1", "s2", "s3"].every((k) => r.runs.some((x) => x.key === k && x.cursor === 3)),
        15_000,
        "last cursors",
      );
      expect(r.stats().maxPerKey).toBe(1);
      expect(r.stats().maxActive).toBeGreaterThan(1);
      for (const key of ["s1", "s2", "s3"]) {
        const mine = r.runs.filter((x) => x.key === key).sort((a, b) => a.start - b.start);
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
      }
    });

    it("keep-last-if-active: many enqueues while active give exactly one follow-up with the latest cursor", async () => {
      const q = await create();
      const r = recorder();
      q.process(r.handler, { concurrency: 4 });
      await q.enqueue("work", { key: "k", cursor: 0, sleepMs: 600 });
      await until(() => q.counts().then((c) => c.active === 1), 5000, "first run active");
      const results = [];
      for (let cursor = 1; cursor <= 20; cursor++)
        results.push(await q.enqueue("work", { key: "k", cursor, sleepMs: 10 }));
      expect(results.every((x) => x.status === "follow-up")).toBe(true);
      expect(new Set(results.map((x) => x.id)).size).toBeLessThanOrEqual(20);
      await until(() => r.runs.length >= 2, 10_000, "follow-up run");
      await sleep(400);
      expect(r.runs.map((x) => x.cursor)).toEqual([0, 20]);
    });

    it("an enqueue while the key's job is still waiting replaces its payload", async () => {
      const q = await create();
      const r = recorder();
      const first = await q.enqueue("work", { key: "w", cursor: 1 });
      const second = await q.enqueue("work", { key: "w", cursor: 2 });
      const third = await q.enqueue("work", { key: "w", cursor: 3 });
      expect(first.status).toBe("queued");
      expect([second.status, third.status]).toEqual(["replaced", "replaced"]);
      expect(third.id).toBe(first.id);
      q.process(r.handler, { concurrency: 2 });
      await until(() => r.runs.length >= 1, 10_000, "run");
      await sleep(400);
      expect(r.runs.map((x) => x.cursor)).toEqual([3]);
    });

    it("retries with backoff, then succeeds; a non-retryable error fails at once", async () => {
      const q = await create();
      const r = recorder();
      q.process(r.handler, { concurrency: 2 });
      await q.enqueue("work", { key: "retry", cursor: 1, failTimes: 2 });
      await q.enqueue("work", { key: "fatal", cursor: 1, fatal: true });
      await until(() => r.runs.filter((x) => x.key === "retry").length >= 3, 10_000, "three attempts");
      const attempts = r.runs.filter((x) => x.key === "retry");
      expect(attempts.map((x) => x.attempt)).toEqual([1, 2, 3]);
      // fixed 150 ms backoff between attempts (BullMQ's delayed-job promotion may add a little)
      expect(attempts[1]!.start - attempts[0]!.end).toBeGreaterThanOrEqual(140);
      expect(attempts[2]!.start - attempts[1]!.end).toBeGreaterThanOrEqual(140);
      await until(() => q.counts().then((c) => c.completed >= 1 && c.failed >= 1), 5000, "counts");
      await sleep(300);
      expect(r.runs.filter((x) => x.key === "fatal").map((x) => x.attempt)).toEqual([1]);
      const c = await q.counts();
      expect(c).toMatchObject({ active: 0, delayed: 0, waiting: 0 });
    });

    it("a job that exceeds its timeout has its signal aborted and fails", async () => {
      const q = await create();
      let aborted = false;
      q.process(
        async (job) => {
          if (job.name !== "slow") return;
          await new Promise<void>((resolve) => {
            job.signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            });
            setTimeout(resolve, job.payload.ms);
          });
        },
        { concurrency: 1 },
      );
      await q.enqueue("slow", { ms: 3000 });
      await until(() => q.counts().then((c) => c.failed === 1), 5000, "timeout failure");
      expect(aborted).toBe(true);
    });

    it("close waits for the active job within the grace period", async () => {
      const q = await make();
      const r = recorder();
      q.process(r.handler, { concurrency: 1 });
      await q.enqueue("work", { key: "g", cursor: 1, sleepMs: 400 });
      await until(() => q.counts().then((c) => c.active === 1), 5000, "active");
      const t0 = Date.now();
      const res = await q.close(5000);
      expect(res).toEqual({ timedOut: false, abandoned: 0 });
      expect(r.runs.map((x) => x.cursor)).toEqual([1]);
      expect(Date.now() - t0).toBeLessThan(4000);
      await expect(q.enqueue("work", { key: "g", cursor: 2 })).rejects.toThrow(/closed/);
    });

    it("close gives up after the grace period and aborts the job's signal", async () => {
      const q = await make();
      let aborted = false;
      let started = false;
      q.process(
        async (job) => {
          started = true;
          await new Promise<void>((resolve) => {
            job.signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            });
            setTimeout(resolve, 4000);
          });
        },
        { concurrency: 1 },
      );
      await q.enqueue("work", { key: "h", cursor: 1 });
      await until(() => started, 5000, "started");
      const t0 = Date.now();
      const res = await q.close(300);
      const took = Date.now() - t0;
      expect(res).toEqual({ timedOut: true, abandoned: 1 });
      expect(aborted).toBe(true);
      expect(took).toBeGreaterThanOrEqual(280);
      expect(took).toBeLessThan(3000);
    });
  });
}
