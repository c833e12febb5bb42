/** Property tests for chain detection: chronological, disjoint, closed chains end on a text-only reply. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectChains } from "../../src/chain-detect.ts";
import { selectEligibleChains } from "../../src/chain-plan.ts";
import type { AgentMessage } from "../../src/messages.ts";
import { DEFAULT_SETTINGS } from "../../src/settings.ts";
import { createState } from "../../src/state.ts";
import { A, F, R, U } from "@condense/test-support/messages";

const branchArb = fc
  .array(
    fc.oneof(fc.constant("U"), fc.constant("F"), fc.constant("A"), fc.constant("R"), fc.constant("C"), fc.anything()),
    { maxLength: 80 },
  )
  .map((steps) =>
    steps.map((s, i): AgentMessage => {
      const ts = 10 + i;
      if (s === "U") return U(ts);
      if (s === "F") return F(ts);
      if (s === "A") return A(ts, `bash_${i % 5}`);
      if (s === "R") return R(ts, `bash_${(i - 1) % 5}`);
      if (s === "C") return { role: "custom", customType: "x", content: "c", timestamp: ts };
      return s as AgentMessage;
    }),
  );

describe("chain detection properties", () => {
  it("chains are chronological, disjoint, start at a user and (closed) end at a text-only assistant", () => {
    fc.assert(
      fc.property(branchArb, (branch) => {
        const chains = detectChains(branch, DEFAULT_SETTINGS);
        let prevEnd = -1;
        for (const c of chains) {
          expect(c.startIndex).toBeGreaterThan(prevEnd);
          expect(c.endIndex).toBeGreaterThanOrEqual(c.startIndex);
          expect(branch[c.startIndex]!.role).toBe("user");
          if (!c.interrupted) {
            const end = branch[c.endIndex] as { role: string; content: { type: string }[] };
            expect(end.role).toBe("assistant");
            expect(end.content.some((b) => b.type === "toolCall")).toBe(false);
          } else {
            expect(c.finalAssistantTimestamp).toBeNull();
          }
          prevEnd = c.endIndex;
        }
        // Selection with any K keeps exactly min(K, candidates) newest candidates out.
        for (const k of [0, 1, 3]) {
          const candidates = chains.filter((c) => !c.interrupted && c.middleToolCallIds.length > 0);
          const eligible = selectEligibleChains(chains, createState(), { rollingWindow: k, graceKeys: new Set() });
          expect(eligible.length).toBe(Math.max(0, candidates.length - k));
        }
      }),
      { numRuns: 400 },
    );
  });
});
