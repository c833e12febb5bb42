/**
 * Retry pacing for everything the client sends or pulls: exponential backoff with full jitter, capped.
 * The agent never waits on it; it only spaces out background attempts while the service is away.
 */

export interface BackoffPolicy {
  /** First delay, in ms. */
  initialMs: number;
  /** Upper bound of any single delay, in ms. */
  maxMs: number;
  /** Growth per attempt. */
  factor: number;
  /** Random source in [0, 1); injectable so tests are deterministic. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ initialMs: 100, maxMs: 5_000, factor: 2 });

/**
 * Delay before retry number `attempt` (0-based). "Full jitter" keeps a fleet of agents that lost the
 * service at the same moment from coming back in lockstep; half the delay is kept as a floor so a
 * retry is never immediate.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number): number {
  const n = Math.max(0, Math.floor(attempt));
  const ceiling = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.min(n, 30));
  const r = (policy.random ?? Math.random)();
  return Math.round(ceiling / 2 + (ceiling / 2) * r);
}

/** A timer that can be cut short (close() must not wait out a 5 s backoff). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    // A sleeping retry loop must not keep a finished agent process alive.
    t.unref?.();
    function done() {
      signal?.removeEventListener("abort", done);
      clearTimeout(t);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
