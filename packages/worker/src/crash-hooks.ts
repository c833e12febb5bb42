/**
 * Fault injection for the crash suites: named points in a flush run where a test harness can have
 * the worker process SIGKILLed. The processor only calls `hooks.reached(point)`; the env parsing and
 * the kill live here and are wired in by main.ts alone, so no production path can crash on purpose.
 *
 * CONDENSE_CRASH_AT = "<point>:<p>" (kill with probability 0 < p < 1 each time the point is reached)
 * or "<point>:#<n>" (kill the n-th time it is reached); several specs separated by commas; the point
 * "any" matches every point.
 */
export const CRASH_POINTS = ["after-summarize", "in-commit", "after-commit", "in-chain-commit", "before-ack"] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface FlushHooks {
  /** Called synchronously at each point; "in-commit" runs inside the commit transaction. */
  reached(point: CrashPoint): void;
}

interface CrashRule {
  point: CrashPoint | "any";
  probability?: number;
  nth?: number;
  seen: number;
}

export function parseCrashSpec(spec: string): CrashRule[] {
  return spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((part) => {
      const [point, arg] = part.split(":");
      if (point !== "any" && !(CRASH_POINTS as readonly string[]).includes(point ?? ""))
        throw new Error(`CONDENSE_CRASH_AT: unknown point ${point}`);
      const rule: CrashRule = { point: point as CrashRule["point"], seen: 0 };
      if (arg?.startsWith("#")) rule.nth = Number(arg.slice(1));
      else rule.probability = Number(arg ?? "1");
      if (
        (rule.nth !== undefined && !(rule.nth >= 1)) ||
        (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1))
      ) {
        throw new Error(`CONDENSE_CRASH_AT: bad trigger in ${part}`);
      }
      return rule;
    });
}

/**
 * Hooks that kill this process at the configured points. "in-commit" kills a few milliseconds later
 * (after the hook returns), so the kill lands while the transaction's statements are in flight.
 */
export function crashHooksFromSpec(
  spec: string | undefined,
  kill: (point: CrashPoint) => void = () => process.kill(process.pid, "SIGKILL"),
  random: () => number = Math.random,
): FlushHooks | undefined {
  if (!spec) return undefined;
  const rules = parseCrashSpec(spec);
  return {
    reached(point) {
      for (const r of rules) {
        if (r.point !== "any" && r.point !== point) continue;
        r.seen++;
        const fire = r.nth !== undefined ? r.seen === r.nth : random() < (r.probability ?? 0);
        if (!fire) continue;
        if (point === "in-commit" || point === "in-chain-commit")
          setTimeout(() => kill(point), Math.floor(random() * 5));
        else kill(point);
        return;
      }
    },
  };
}
