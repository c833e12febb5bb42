/**
 * Per-tenant rate limiting as a token bucket: `burst` tokens, refilled at `perSecond`. One request
 * takes one token. The port has two adapters: in memory (embedded) and Redis (fleet, shared by replicas).
 */
export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When refused: milliseconds until one token is back. */
  retryAfterMs: number;
}

export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
  close?(): Promise<void>;
}

export interface BucketPolicy {
  perSecond: number;
  burst: number;
}

/** Refill and take in one pure step, shared by the memory adapter and mirrored by the Redis script. */
export function refillAndTake(
  tokens: number,
  lastMs: number,
  nowMs: number,
  policy: BucketPolicy,
): { tokens: number; decision: RateDecision } {
  const perMs = policy.perSecond / 1000;
  const refilled = Math.min(policy.burst, tokens + Math.max(0, nowMs - lastMs) * perMs);
  if (refilled >= 1) {
    const left = refilled - 1;
    return { tokens: left, decision: { allowed: true, remaining: Math.floor(left), retryAfterMs: 0 } };
  }
  const retryAfterMs = perMs > 0 ? Math.ceil((1 - refilled) / perMs) : 60_000;
  return { tokens: refilled, decision: { allowed: false, remaining: 0, retryAfterMs } };
}
