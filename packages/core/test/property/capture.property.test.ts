/** Property tests for capture and trim: no call captured twice, keys unique, never throws on junk. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callKey, capturePendingBatches, rescanBranch, trimBatches } from "../../src/capture.ts";
import type { AgentMessage } from "../../src/messages.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../../src/settings.ts";
import { buildState, createState } from "../../src/state.ts";
import { emptyStats } from "../../src/state-types.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { record } from "../support/builders.ts";

/** A random branch over a small id pool so ids are reused across turns, with shuffled-in junk. */
const branchArb = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant("U" as const) }),
      fc.record({ kind: fc.constant("F" as const) }),
      fc.record({
        kind: fc.constant("A" as const),
        ids: fc.uniqueArray(fc.constantFrom("bash_1", "bash_2", "read_1", "edit_1"), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        kind: fc.constant("R" as const),
        id: fc.constantFrom("bash_1", "bash_2", "read_1", "edit_1", "ghost_1"),
      }),
      fc.record({ kind: fc.constant("J" as const), junk: fc.anything() }),
    ),
    { maxLength: 60 },
  )
  .map((steps) =>
    steps.map((s, i): AgentMessage => {
      const ts = 1000 + i * 10;
      switch (s.kind) {
        case "U":
          return U(ts);
        case "F":
          return F(ts);
        case "A":
          return A(ts, ...s.ids);
        case "R":
          return R(ts, s.id);
        default:
          return s.junk as AgentMessage;
      }
    }),
  );

describe("capture properties", () => {
  it("never throws on junk, and no occurrence is captured twice", () => {
    fc.assert(
      fc.property(branchArb, fc.constantFrom("turn", "agent-message"), (branch, mode) => {
        const settings = normalizeSettings({ batchingMode: mode });
        const batches = capturePendingBatches(branch, createState(), settings);
        const keys = batches.flatMap((b) => b.toolCalls.map(callKey));
        expect(new Set(keys).size).toBe(keys.length);
        for (const b of batches) expect(b.toolCalls.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("trim never returns an indexed occurrence, and re-capturing after indexing everything yields nothing", () => {
    fc.assert(
      fc.property(branchArb, (branch) => {
        const first = rescanBranch(branch, createState(), DEFAULT_SETTINGS);
        const records = first.flatMap((b) => b.toolCalls.map((c) => record(c.toolCallId, c.resultTimestamp)));
        const indexed = buildState(1, records, [], [], [], null, emptyStats());
        expect(rescanBranch(branch, indexed, DEFAULT_SETTINGS)).toEqual([]);
        expect(trimBatches(first, indexed)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("every captured call pairs with a result in its own turn window", () => {
    fc.assert(
      fc.property(branchArb, (branch) => {
        for (const b of rescanBranch(branch, createState(), DEFAULT_SETTINGS)) {
          for (const c of b.toolCalls) {
            const i = branch.findIndex(
              (m) =>
                m &&
                m.role === "toolResult" &&
                (m as { toolCallId?: string }).toolCallId === c.toolCallId &&
                m.timestamp === c.resultTimestamp,
            );
            expect(i).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
