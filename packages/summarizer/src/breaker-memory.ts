/** In-process breaker state for the embedded mode (one process runs API and worker). */
import type { BreakerSnapshot, BreakerStore } from "./breaker-store.ts";

interface Entry {
  since: number;
  lastProbeAt: number;
  probeUntil: number;
}

/** `now` arguments come from the caller, so tests drive time without timers. */
export function createMemoryBreakerStore(): BreakerStore {
  const entries = new Map<string, Entry>();
  return {
    async read(key): Promise<BreakerSnapshot> {
      const e = entries.get(key);
      return e
        ? { mode: "fallback", since: e.since, lastProbeAt: e.lastProbeAt }
        : { mode: "primary", since: null, lastProbeAt: null };
    },
    async enterFallback(key, now, cooldownMs) {
      if (entries.has(key)) return false;
      entries.set(key, { since: now, lastProbeAt: now, probeUntil: now + cooldownMs });
      return true;
    },
    async claimProbe(key, now, cooldownMs) {
      const e = entries.get(key);
      if (!e || now < e.probeUntil) return false;
      e.lastProbeAt = now;
      e.probeUntil = now + cooldownMs;
      return true;
    },
    async recover(key) {
      return entries.delete(key);
    },
  };
}
