/** In-memory token buckets for embedded mode (one process, so no sharing needed). */
import { refillAndTake, type BucketPolicy, type RateDecision, type RateLimiter } from "./rate-limiter.ts";

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; last: number }>();

  constructor(
    private readonly policy: BucketPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string): Promise<RateDecision> {
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.policy.burst, last: now };
    const { tokens, decision } = refillAndTake(b.tokens, b.last, now, this.policy);
    // Delete-then-set keeps insertion order = recency, so the sweep below evicts idle tenants first.
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, last: now });
    if (this.buckets.size > 10_000) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return decision;
  }
}
