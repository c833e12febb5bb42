/**
 * The retention job on a schedule: `runRetention` (packages/db) once shortly after the worker starts
 * and then every interval, one run at a time per process. Several workers running it at once do no
 * harm (each chunk deletes what is still there). One log line per run with what it removed.
 */
import { runRetention, type Db, type RetentionPolicy, type RetentionResult } from "@condense/db";
import type { Logger } from "pino";

export interface RetentionSchedule {
  /** Run now (skipped, returning null, while a run is already going). */
  runOnce(): Promise<RetentionResult | null>;
  stop(): void;
}

export function startRetentionSchedule(opts: {
  db: Db;
  logger: Logger;
  policy: RetentionPolicy;
  intervalMs: number;
  firstRunDelayMs?: number;
}): RetentionSchedule {
  let running = false;
  let stopped = false;
  const runOnce = async () => {
    if (running || stopped) return null;
    running = true;
    const started = performance.now();
    try {
      const result = await runRetention(opts.db, opts.policy);
      opts.logger.info(
        {
          job: "retention",
          outcome: "ok",
          policy: opts.policy,
          removed: result,
          durationMs: Math.round(performance.now() - started),
        },
        "retention run",
      );
      return result;
    } catch (err) {
      opts.logger.warn(
        { job: "retention", outcome: "error", err },
        "retention run failed; the next interval tries again",
      );
      return null;
    } finally {
      running = false;
    }
  };
  const nothingToDo = Object.values(opts.policy).every((d) => d === 0);
  if (opts.intervalMs <= 0 || nothingToDo)
    return {
      runOnce,
      stop: () => {
        stopped = true;
      },
    };
  // Not at once: a worker that starts should take jobs first, and a crash loop must not hammer deletes.
  const first = setTimeout(() => void runOnce(), opts.firstRunDelayMs ?? Math.min(60_000, opts.intervalMs));
  const timer = setInterval(() => void runOnce(), opts.intervalMs);
  first.unref?.();
  timer.unref?.();
  return {
    runOnce,
    stop: () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
