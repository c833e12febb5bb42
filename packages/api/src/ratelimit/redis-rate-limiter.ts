/**
 * Token buckets in Redis for fleet mode, so every API replica draws from the same bucket. One Lua
 * script refills and takes atomically, using the Redis server clock (replica clocks may disagree).
 * Keys live under `<prefix>:rl:<key>` and expire once a bucket would be full again.
 */
import type { Redis } from "ioredis";
import type { BucketPolicy, RateDecision, RateLimiter } from "./rate-limiter.ts";

const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perMs = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * perMs)
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
elseif perMs > 0 then
  retry = math.ceil((1 - tokens) / perMs)
else
  retry = 60000
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
local ttl = 60000
if perMs > 0 then ttl = math.ceil(burst / perMs) + 1000 end
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, math.floor(tokens), retry}
`;

type WithTake = Redis & {
  condenseRateTake(key: string, perMs: string, burst: string): Promise<[number, number, number]>;
};

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: WithTake;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly policy: BucketPolicy,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once, so the script body is not resent per request.
    redis.defineCommand("condenseRateTake", { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as WithTake;
  }

  async take(key: string): Promise<RateDecision> {
    const out = await this.redis.condenseRateTake(
      `${this.prefix}:rl:${key}`,
      String(this.policy.perSecond / 1000),
      String(this.policy.burst),
    );
    return { allowed: out[0] === 1, remaining: out[1], retryAfterMs: out[2] };
  }
}
