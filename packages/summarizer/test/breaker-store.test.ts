/**
 * The BreakerStore contract, run against the in-memory store and the Redis store: one switch, one
 * probe per cooldown, one recovery, whoever races for them.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createMemoryBreakerStore } from "../src/breaker-memory.ts";
import { createRedisBreakerStore } from "../src/breaker-redis.ts";
import type { BreakerStore } from "../src/breaker-store.ts";

const redisUrl = inject("redisUrl");
if (!redisUrl)
  console.warn("\n!!! breaker-store.test.ts: no Redis (REDIS_URL unset): the Redis store contract is SKIPPED !!!\n");
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function contract(
  name: string,
  make: () => BreakerStore,
  clock: { now(): number; advance(ms: number): Promise<void> },
) {
  describe(name, () => {
    it("enters fallback once, fleet-wide", async () => {
      const store = make();
      const key = `k-${randomUUID()}`;
      expect((await store.read(key)).mode).toBe("primary");
      const wins = await Promise.all([1, 2, 3, 4].map(() => store.enterFallback(key, clock.now(), 200)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const s = await store.read(key);
      expect(s.mode).toBe("fallback");
      expect(s.since).not.toBeNull();
    });

    it("grants exactly one probe per cooldown, none in primary mode", async () => {
      const store = make();
      const key = `k-${randomUUID()}`;
      expect(await store.claimProbe(key, clock.now(), 200)).toBe(false);
      await store.enterFallback(key, clock.now(), 200);
      expect(await store.claimProbe(key, clock.now(), 200)).toBe(false);
      await clock.advance(250);
      const claims = await Promise.all([1, 2, 3, 4, 5].map(() => store.claimProbe(key, clock.now(), 200)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimProbe(key, clock.now(), 200)).toBe(false);
      await clock.advance(250);
      expect(await store.claimProbe(key, clock.now(), 200)).toBe(true);
    });

    it("announces recovery once and returns to primary", async () => {
      const store = make();
      const key = `k-${randomUUID()}`;
      await store.enterFallback(key, clock.now(), 200);
      const wins = await Promise.all([1, 2, 3].map(() => store.recover(key)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store.read(key)).toEqual({ mode: "primary", since: null, lastProbeAt: null });
      expect(await store.enterFallback(key, clock.now(), 200)).toBe(true);
    });
  });
}

let memoryNow = 1_000;
contract("memory breaker store", createMemoryBreakerStore, {
  now: () => memoryNow,
  advance: async (ms) => {
    memoryNow += ms;
  },
});

describe.skipIf(!redisUrl)("redis", () => {
  const prefix = `condense-test:${randomUUID()}:`;
  const redis = redisUrl ? new Redis(redisUrl) : null;
  afterAll(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  // Redis expires the probe key on its own clock, so this variant really waits.
  contract("redis breaker store", () => createRedisBreakerStore(redis!, prefix), { now: Date.now, advance: sleep });
});
