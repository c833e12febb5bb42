/**
 * Wall-clock time per stage of one flush run, for the wide log line, the trace file and the bench:
 * how much of a flush is database round trips, how much is the summarizer, how much is planning.
 * Stages are laps of one clock, so they add up to the run's total.
 */
export type FlushStage =
  | "load"
  | "pending"
  | "canonicals"
  | "plan"
  | "reserve"
  | "summarize"
  | "assemble"
  | "commit"
  | "chains";

export interface FlushTimings {
  /** Run start as a high-resolution epoch time (ms), comparable across processes on one host. */
  startedAt: number;
  /** Milliseconds per stage, in the order the run went through them (a re-plan adds to the same stage). */
  stages: Partial<Record<FlushStage, number>>;
  total: number;
}

export interface FlushClock {
  lap(stage: FlushStage): void;
  /** A lap shared by two overlapping stages: `ms` of it (capped) to `first`, the rest to `rest`. */
  split(first: FlushStage, ms: number, rest: FlushStage): void;
  done(): FlushTimings;
}

export function startFlushClock(): FlushClock {
  const t0 = performance.now();
  const startedAt = performance.timeOrigin + t0;
  let last = t0;
  const stages: FlushTimings["stages"] = {};
  return {
    lap(stage) {
      const now = performance.now();
      stages[stage] = (stages[stage] ?? 0) + (now - last);
      last = now;
    },
    split(first, ms, rest) {
      const now = performance.now();
      const share = Math.min(Math.max(0, ms), now - last);
      stages[first] = (stages[first] ?? 0) + share;
      stages[rest] = (stages[rest] ?? 0) + (now - last - share);
      last = now;
    },
    done() {
      return { startedAt, stages, total: performance.now() - t0 };
    },
  };
}
