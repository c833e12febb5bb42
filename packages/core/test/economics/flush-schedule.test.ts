import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CACHE_PRICES } from "../../src/economics/cache-prices.ts";
import {
  feasibleSchedule,
  optimalSchedule,
  scheduleCost,
  type ScheduleSession,
} from "../../src/economics/flush-schedule.ts";

const P = DEFAULT_CACHE_PRICES;

function session(
  turns: Array<{ raw: number; cond: number; lag: number; cold: boolean }>,
  first = 1000,
): ScheduleSession {
  const rawTotal: number[] = [];
  let t = first;
  for (const x of turns) {
    rawTotal.push(t);
    t += x.raw;
  }
  return {
    rawTotal,
    raw: turns.map((x) => x.raw),
    cond: turns.map((x) => x.cond),
    lag: turns.map((x) => x.lag),
    cold: turns.map((x) => x.cold),
    output: turns.map(() => 50),
  };
}

function bruteForce(s: ScheduleSession): number {
  const K = s.rawTotal.length;
  let best = Number.POSITIVE_INFINITY;
  for (let mask = 0; mask < 1 << K; mask++) {
    const schedule: number[] = [];
    for (let q = 0; q < K; q++) if (mask & (1 << q)) schedule.push(q);
    best = Math.min(best, scheduleCost(s, P, schedule).costUsd);
  }
  return best;
}

const turn = fc.integer({ min: 0, max: 20_000 }).chain((raw) =>
  fc.record({
    raw: fc.constant(raw),
    cond: fc.integer({ min: 0, max: raw }),
    lag: fc.integer({ min: 0, max: 1 }),
    cold: fc.boolean(),
  }),
);

describe("flush schedule oracle", () => {
  it("no flush costs what the raw session costs: every request reads the previous one", () => {
    const s = session([
      { raw: 1000, cond: 100, lag: 1, cold: false },
      { raw: 1000, cond: 100, lag: 0, cold: false },
      { raw: 0, cond: 0, lag: 0, cold: false },
    ]);
    const none = scheduleCost(s, P, []);
    expect(none.cacheWriteTokens).toBe(3000);
    expect(none.cacheReadTokens).toBe(1000 + 2000);
  });

  it("a flush lands one request later inside the loop, and the landing request rewrites from the first condensed turn", () => {
    const s = session([
      { raw: 10_000, cond: 500, lag: 1, cold: false },
      { raw: 1000, cond: 1000, lag: 1, cold: false },
      { raw: 1000, cond: 1000, lag: 1, cold: false },
      { raw: 0, cond: 0, lag: 1, cold: false },
    ]);
    const c = scheduleCost(s, P, [0]);
    expect(c.flushes).toEqual([0]);
    // Request 2 carries the stub: it reads the 1000-token head and writes 500 + 1000.
    expect(c.cacheReadTokens).toBe(0 + 1000 + 1000 + (1000 + 500 + 1000));
    expect(feasibleSchedule(s, [3, 2, 0])).toEqual([0]);
  });

  it("the dynamic program equals the brute force over every schedule (small sessions)", () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 9 }), (turns) => {
        const s = session(turns);
        const dp = optimalSchedule(s, P);
        expect(dp.costUsd).toBeCloseTo(bruteForce(s), 9);
      }),
      { numRuns: 150 },
    );
  });

  it("the oracle is never worse than not flushing, or than any given schedule", () => {
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 39 })),
        (turns, sched) => {
          const s = session(turns);
          const best = optimalSchedule(s, P).costUsd;
          expect(best).toBeLessThanOrEqual(scheduleCost(s, P, []).costUsd + 1e-12);
          expect(best).toBeLessThanOrEqual(scheduleCost(s, P, sched).costUsd + 1e-12);
        },
      ),
      { numRuns: 100 },
    );
  });
});
