/**
 * The first pass's cursor lookup of chain boundary timestamps (tsSeek) answers exactly what the
 * bisection (tsLookup) answers, for ascending, repeated, descending and NaN timestamps alike.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { beginChainScan, tsLookup, tsSeek } from "../../src/render/chain-range-prune.ts";
import { normalizeSettings } from "../../src/settings.ts";
import { createState } from "../../src/state.ts";
import type { ChainEntry } from "../../src/state-types.ts";

const settings = normalizeSettings({});
const entry = (blockId: string, start: number, end: number): ChainEntry =>
  ({ blockId, startUserTimestamp: start, finalAssistantTimestamp: end, compressedAt: 0, droppedToolCallIds: [], droppedOccurrenceKeys: [] }) as unknown as ChainEntry;

describe("tsSeek", () => {
  it("matches tsLookup on any sequence of timestamps", () => {
    const ts = fc.oneof(fc.integer({ min: 0, max: 60 }), fc.constant(Number.NaN), fc.constant(-1), fc.constant(1e9));
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 50 })), { minLength: 1, maxLength: 12 }),
      fc.array(ts, { maxLength: 80 }),
      fc.boolean(),
      (bounds, seq, sorted) => {
        const state = { ...createState(), chains: bounds.map(([a, b], k) => entry(`b${k}`, a, b)) };
        const scan = beginChainScan(state, settings, 10)!;
        const input = sorted ? [...seq].sort((a, b) => a - b) : seq;
        for (const t of input) {
          expect(tsSeek(scan.starts, t, scan, 0)).toEqual(tsLookup(scan.starts, t));
          expect(tsSeek(scan.ends, t, scan, 1)).toEqual(tsLookup(scan.ends, t));
        }
      },
    ), { numRuns: 500 });
  });
});
