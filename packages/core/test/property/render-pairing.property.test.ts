/**
 * Pairing always wins (issue 17 item 3): with malformed tool results (string, null or missing
 * content, missing or non-string ids) as turn tails, after barriers and inside compressed ranges, no
 * render holds a tool result that its turn's assistant did not open, whatever the result's shape.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { malformedCaseArb, REPLAY, RUNS, stateFor, strictPairingViolations } from "../support/render-histories.ts";

/** Thousands of histories: the defect this guards showed in about 12 of 2,000. */
const PAIRING_RUNS = Math.max(RUNS, 2000);
const isBadResult = (m: unknown) => {
  if (typeof m !== "object" || m === null || (m as { role?: unknown }).role !== "toolResult") return false;
  const r = m as { toolCallId?: unknown; content?: unknown };
  return typeof r.toolCallId !== "string" || !Array.isArray(r.content);
};

describe("pairing wins over malformed input", () => {
  it("no render holds an unopened tool result, malformed or not; a rendered render stays paired", () => {
    const seen = { badInInput: 0, badSwept: 0, badKept: 0, chainsApplied: 0 };
    fc.assert(
      fc.property(malformedCaseArb, ([h, c, s]) => {
        const st = stateFor(h, c);
        const r = pruneMessages(h.messages, st, { settings: s });
        expect(strictPairingViolations(r.messages)).toEqual([]);
        const bad = h.messages.filter(isBadResult);
        if (bad.length > 0) seen.badInInput++;
        if (bad.some((m) => !r.messages.includes(m))) seen.badSwept++;
        if (bad.some((m) => r.messages.includes(m))) seen.badKept++;
        if (r.stats.chainsApplied > 0 && bad.length > 0) seen.chainsApplied++;
        // and the rendered output, rendered again (what a host that feeds it back sends)
        expect(strictPairingViolations(pruneMessages(r.messages, st, { settings: s }).messages)).toEqual([]);
      }),
      { numRuns: PAIRING_RUNS, ...REPLAY },
    );
    if (process.env.CONDENSE_PROPERTY_STATS) console.log(seen);
    // The generator must reach every situation, or the property proves little: malformed results
    // swept, malformed results kept because their call opened them, and compressed ranges around them.
    for (const [k, n] of Object.entries(seen)) expect(n, `cases with ${k}`).toBeGreaterThan(PAIRING_RUNS / 40);
  }, 240_000); // thousands of generated histories: minutes on a loaded 2-vCPU host
});
