/**
 * Fleet mode against real services: its own random Postgres database and its own Redis key prefix
 * (both removed afterwards). Skips loudly when either service is absent.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { tenantOverHttp } from "./support/http-tenant.ts";
import { createScratchDatabase, type ScratchDatabase } from "@condense/db";
import { loadApiEnv } from "../src/env.ts";
import { RedisRateLimiter } from "../src/ratelimit/redis-rate-limiter.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { versionChannel } from "../src/sse/version-hub.ts";
import { batch, call, capturesBody, commitAllPending } from "@condense/test-support/flush-plan";

const databaseUrl = inject("databaseUrl");
const redisUrl = inject("redisUrl");
const available = databaseUrl.startsWith("postgres") && redisUrl !== "";
if (!available)
  console.warn(
    "\n!!! packages/api fleet suite SKIPPED: needs real Postgres (DATABASE_URL) and Redis (REDIS_URL). !!!\n",
  );

const ADMIN = "fleet-admin-key-0123456789";

async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

describe.skipIf(!available)(
  "fleet mode: Postgres + Redis (BullMQ queue, Redis rate limits, Redis event fan-out)",
  () => {
    const prefix = `condense-test-${randomBytes(4).toString("hex")}`;
    let scratch: ScratchDatabase;
    let server: RunningServer;
    let redis: Redis;
    let headers: Record<string, string>;

    beforeAll(async () => {
      redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
      scratch = await createScratchDatabase(databaseUrl, "condense_api_test");
      server = await startServer({
        env: loadApiEnv({
          PORT: "0",
          DATABASE_URL: scratch.url,
          REDIS_URL: redisUrl,
          CONDENSE_REDIS_PREFIX: prefix,
          CONDENSE_ADMIN_KEY: ADMIN,
          CONDENSE_SSE_POLL_MS: "10000",
          LOG_LEVEL: "silent",
        }),
      });
      ({ headers } = await tenantOverHttp(server.url, ADMIN, { id: "fleet", name: "Fleet" }));
    });
    afterAll(async () => {
      await server?.close();
      if (redis) {
        await dropPrefix(redis, prefix);
        redis.disconnect();
      }
      await scratch?.drop();
    });

    it("captures, flushes to a BullMQ job, and serves the committed delta", async () => {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { status: string };
      expect(ready.status).toBe("ready");
      const cap = await fetch(`${server.url}/v1/sessions/f1/captures`, {
        method: "POST",
        headers,
        body: JSON.stringify(capturesBody("c1", [batch(0, [call("a", 1), call("b", 2)])])),
      });
      expect(await cap.json()).toMatchObject({ accepted: 2 });
      const flush = await fetch(`${server.url}/v1/sessions/f1/flushes`, {
        method: "POST",
        headers,
        body: JSON.stringify({ trigger: "delta" }),
      });
      expect(flush.status).toBe(202);
      expect(server.jobQueue.kind).toBe("bullmq");
      expect((await server.jobQueue.counts()).waiting).toBe(1);
      const fleet = (await (await fetch(`${server.url}/v1/fleet/status`, { headers })).json()) as {
        queue: { kind: string; waiting: number; workers: number };
      };
      expect(fleet.queue).toMatchObject({ kind: "bullmq", waiting: 1, workers: 0 });

      const version = await commitAllPending(server.db.db, { tenantId: "fleet", sessionId: "f1" });
      const delta = (await (await fetch(`${server.url}/v1/sessions/f1/state?since=0`, { headers })).json()) as {
        toVersion: number;
        records: { shortRef: string }[];
      };
      expect(delta.toVersion).toBe(version);
      expect(delta.records.map((r) => r.shortRef)).toEqual(["t1", "t2"]);
    });

    it("fans a version published on Redis (by a worker elsewhere) out to open SSE streams", async () => {
      const ctrl = new AbortController();
      const res = await fetch(`${server.url}/v1/sessions/f1/events?since=100`, { headers, signal: ctrl.signal });
      expect(res.status).toBe(200);
      // The poll interval is 10 s here, so only the pub/sub path can deliver within the wait.
      await redis.publish(versionChannel(prefix), JSON.stringify({ tenantId: "fleet", sessionId: "f1", version: 101 }));
      const reader = res.body!.getReader();
      let text = "";
      const deadline = Date.now() + 5000;
      while (!text.includes("id: 101") && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text).toContain("event: version");
      expect(text).toContain("id: 101");
      ctrl.abort();
    });

    it("shares one token bucket per tenant across replicas through Redis", async () => {
      const a = new RedisRateLimiter(redis, `${prefix}:rl-test`, { perSecond: 1, burst: 3 });
      const b = new RedisRateLimiter(redis, `${prefix}:rl-test`, { perSecond: 1, burst: 3 });
      const decisions = [await a.take("t"), await b.take("t"), await a.take("t"), await b.take("t")];
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions[3]!.retryAfterMs).toBeGreaterThan(0);
      expect(decisions[3]!.retryAfterMs).toBeLessThanOrEqual(1000);
      expect((await a.take("other")).allowed).toBe(true);
      const ttl = await redis.pttl(`${prefix}:rl-test:rl:t`);
      expect(ttl).toBeGreaterThan(0);
    });
  },
);
