import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, inject } from "vitest";
import { createBullmqQueue } from "../src/index.ts";
import { describeJobQueueContract } from "./support/queue-contract.ts";
import { testJobs } from "./support/test-catalog.ts";

const redisUrl = inject("redisUrl");
if (!redisUrl)
  console.warn(
    "\n!!! NO REDIS: the BullMQ JobQueue suite is SKIPPED. Set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it. !!!\n",
  );

// Every queue of this file lives under one random prefix, deleted afterwards.
const prefix = `condense-test-${randomBytes(5).toString("hex")}`;
let n = 0;

describeJobQueueContract(
  "bullmq",
  async () =>
    createBullmqQueue({
      catalog: testJobs,
      redisUrl,
      prefix,
      queueName: `q${n++}`,
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
    }),
  { skip: !redisUrl },
);

afterAll(async () => {
  if (!redisUrl) return;
  const r = new Redis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    cursor = next;
    if (keys.length) await r.del(...keys);
  } while (cursor !== "0");
  await r.quit();
});
