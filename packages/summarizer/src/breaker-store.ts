/**
 * Where the outage breaker keeps its state (CAP-SUM-9, made fleet-wide): in Redis when workers run
 * on several machines, in memory when one process does everything. Every transition is an atomic
 * claim, so exactly one caller in the fleet switches to the fallback, exactly one probes the primary
 * per cooldown, and exactly one announces recovery.
 */

export interface BreakerSnapshot {
  mode: "primary" | "fallback";
  /** When the current outage began. */
  since: number | null;
  /** When the primary was last probed, or the outage began (the cooldown's start). */
  lastProbeAt: number | null;
}

export interface BreakerStore {
  read(key: string): Promise<BreakerSnapshot>;
  /** Enter fallback mode and start the cooldown. True only for the caller that made the switch. */
  enterFallback(key: string, now: number, cooldownMs: number): Promise<boolean>;
  /** Claim the single probe of this cooldown. True only in fallback mode, once per cooldown, fleet-wide. */
  claimProbe(key: string, now: number, cooldownMs: number): Promise<boolean>;
  /** Leave fallback mode. True only for the caller that made the switch (it announces the recovery). */
  recover(key: string): Promise<boolean>;
}
