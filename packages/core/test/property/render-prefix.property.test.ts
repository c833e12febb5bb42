/**
 * The prefix moves only when state changes (issue 18 item 3). Between two applied states the render
 * policy (error purge, recovery grace) is the one decided when the state was applied, so every render
 * of a history is a byte-exact prefix of the render of that history extended with later turns: what
 * the provider cached stays cached until the next flush. Serialized message by message.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideRenderPolicy, pruneMessages } from "../../src/render/prune-messages.ts";
import {
  build,
  caseArb,
  malformedCaseArb,
  malformedSegmentArb,
  REPLAY,
  RUNS,
  stateFor,
} from "../support/render-histories.ts";

const PREFIX_RUNS = Math.max(RUNS, 2000);
const extensionArb = fc.array(malformedSegmentArb, { minLength: 1, maxLength: 12 });

/** The first position where `longer` does not continue `shorter` byte for byte, or -1. */
function prefixBreak(shorter: readonly unknown[], longer: readonly unknown[]): number {
  for (let i = 0; i < shorter.length; i++)
    if (i >= longer.length || JSON.stringify(shorter[i]) !== JSON.stringify(longer[i])) return i;
  return -1;
}

describe("the prefix moves only when state changes", () => {
  it("with the policy of the applied state, a render is a byte-exact prefix of the render of the extended history", () => {
    let renderTimeBreaks = 0;
    fc.assert(
      fc.property(malformedCaseArb, extensionArb, fc.nat(3), ([h, c, s], more, steps) => {
        const st = stateFor(h, c);
        const policy = decideRenderPolicy(h.messages, s);
        // several renders between two applications: the history grows turn by turn
        let before = pruneMessages(h.messages, st, { settings: s, policy }).messages;
        let grown = h;
        for (let k = 0; k <= steps; k++) {
          grown = build(more.slice(0, Math.ceil(((k + 1) * more.length) / (steps + 1))), h);
          const after = pruneMessages(grown.messages, st, { settings: s, policy }).messages;
          expect(prefixBreak(before, after)).toBe(-1);
          before = after;
        }
        // The same histories with the decisions taken at each render (the old behaviour) for contrast.
        const atRender = (msgs: typeof h.messages) => pruneMessages(msgs, st, { settings: s }).messages;
        if (prefixBreak(atRender(h.messages), atRender(grown.messages)) >= 0) renderTimeBreaks++;
      }),
      { numRuns: PREFIX_RUNS, ...REPLAY },
    );
    // The generated extensions do age purges and graces: deciding at render time moves the prefix.
    if (process.env.CONDENSE_PROPERTY_STATS) console.log({ renderTimeBreaks });
    expect(renderTimeBreaks).toBeGreaterThan(PREFIX_RUNS / 100);
  }, 240_000); // thousands of generated histories: minutes on a loaded 2-vCPU host

  it("a new policy, decided when the next state is applied, is what moves the prefix", () => {
    fc.assert(
      fc.property(caseArb, extensionArb, ([h, c, s], more) => {
        const st = stateFor(h, c);
        const grown = build(more, h);
        const next = decideRenderPolicy(grown.messages, s);
        // deciding again over the grown history equals deciding at render time over it
        expect(pruneMessages(grown.messages, st, { settings: s, policy: next }).messages).toEqual(
          pruneMessages(grown.messages, st, { settings: s }).messages,
        );
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });
});
