/**
 * Fleet-wide breaker state in Redis. Three keys per breaker: `<prefix><key>:mode` (present while the
 * fleet is in fallback; holds the outage start), `<prefix><key>:probe` (the cooldown: expires one
 * cooldown after the last probe) and `<prefix><key>:last-probe` (for status). Claiming the probe is `SET NX PX` inside a script that first checks the
 * mode, so two workers can never both probe, nor probe after another one already recovered.
 */
import type { Redis } from "ioredis";
import type { BreakerSnapshot, BreakerStore } from "./breaker-store.ts";

const ENTER = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  redis.call('SET', KEYS[3], ARGV[1])
  return 1
end
return 0`;

const CLAIM_PROBE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('SET', KEYS[3], ARGV[1])
  return 1
end
return 0`;

const RECOVER = `
local n = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
return n`;

export function createRedisBreakerStore(redis: Redis, prefix: string): BreakerStore {
  const keys = (key: string) => ({
    mode: `${prefix}${key}:mode`,
    probe: `${prefix}${key}:probe`,
    lastProbe: `${prefix}${key}:last-probe`,
  });
  return {
    async read(key): Promise<BreakerSnapshot> {
      const k = keys(key);
      const [mode, lastProbe] = await redis.mget(k.mode, k.lastProbe);
      if (mode == null) return { mode: "primary", since: null, lastProbeAt: null };
      return {
        mode: "fallback",
        since: Number(mode),
        lastProbeAt: lastProbe == null ? Number(mode) : Number(lastProbe),
      };
    },
    async enterFallback(key, now, cooldownMs) {
      const k = keys(key);
      return (
        (await redis.eval(ENTER, 3, k.mode, k.probe, k.lastProbe, String(now), String(Math.max(1, cooldownMs)))) === 1
      );
    },
    async claimProbe(key, now, cooldownMs) {
      const k = keys(key);
      return (
        (await redis.eval(
          CLAIM_PROBE,
          3,
          k.mode,
          k.probe,
          k.lastProbe,
          String(now),
          String(Math.max(1, cooldownMs)),
        )) === 1
      );
    },
    async recover(key) {
      const k = keys(key);
      return (await redis.eval(RECOVER, 3, k.mode, k.probe, k.lastProbe)) === 1;
    },
  };
}
