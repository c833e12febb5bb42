import { describe, expect, it } from "vitest";
import {
  computeContextMetrics,
  frontierGapTokens,
  largestChainSharePct,
  openCycleThinkingTokens,
  reclaimPercent,
  tokensOfChars,
} from "../src/metrics.ts";
import type { AgentMessage } from "../src/messages.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../src/settings.ts";
import { buildState, createState } from "../src/state.ts";
import { emptyStats, type Frontier } from "../src/state-types.ts";
import { metricsSegment } from "../src/texts.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { record } from "./support/builders.ts";

const S = DEFAULT_SETTINGS;
const len = (m: unknown) => JSON.stringify(m).length;

describe("context metrics (CAP-METRICS-2/3/4)", () => {
  it("AS-54: 256 tool turns, no text-only reply: open segment is the whole branch, share ~100%, gap = unsummarized results", () => {
    const thinkingTurn = (i: number): AgentMessage => ({
      role: "assistant",
      timestamp: 10 + i * 10,
      stopReason: "toolUse",
      content: [
        { type: "thinking", thinking: `plan ${i}` },
        { type: "toolCall", id: `bash_${i}`, name: "bash", arguments: { command: `ls ${i}` } },
      ],
    });
    const branch: AgentMessage[] = [U(1)];
    for (let i = 0; i < 256; i++) branch.push(thinkingTurn(i), R(15 + i * 10, `bash_${i}`, "y".repeat(400)));
    const state = buildState(1, [record("bash_0", 15)], [], [], [], null, emptyStats());
    const m = computeContextMetrics(branch, state, S);
    expect(m.largestChainSharePct).toBe(100);
    let gap = 0;
    for (const msg of branch.slice(3)) if (msg.role === "toolResult") gap += tokensOfChars(len(msg));
    expect(m.frontierGapTokens).toBe(gap);
    let think = 0;
    for (let i = 0; i < 256; i++) think += len({ type: "thinking", thinking: `plan ${i}` });
    expect(m.openCycleThinkingTokens).toBe(tokensOfChars(think));
    const seg = metricsSegment(m);
    expect(seg).toMatch(/^ · think \S+ · gap \S+ · chain 100%$/);
  });

  it("AS-55: frontier at turn 2 call c1 of c1,c2; a later reuse of c1 counts", () => {
    const branch = [
      U(1),
      A(10, "a_0"),
      R(11, "a_0"),
      A(20, "b_0"),
      R(21, "b_0"),
      A(30, { id: "c1", name: "bash" }, { id: "c2", name: "bash" }),
      R(31, "c1", "one", { name: "bash" }),
      R(32, "c2", "two", { name: "bash" }),
      A(40, { id: "c1", name: "bash" }),
      R(41, "c1", "three", { name: "bash" }),
    ];
    const frontier: Frontier = {
      lastAttemptedToolCallId: "c1",
      lastAttemptedToolName: "bash",
      lastAttemptedTurnIndex: 2,
      lastAttemptedTimestamp: 0,
      attemptedBatchCount: 1,
      attemptedToolCallCount: 1,
      rawCharCount: 0,
      summaryCharCount: 0,
      outcome: "summarized",
    };
    const state = buildState(1, [], [], [], [], frontier, emptyStats());
    const expected = tokensOfChars(len(branch[7])) + tokensOfChars(len(branch[9]));
    expect(frontierGapTokens(branch, state, S)).toBe(expected);
    // Turn or id not found -> whole branch.
    const lost = buildState(1, [], [], [], [], { ...frontier, lastAttemptedToolCallId: "zz" }, emptyStats());
    const all = branch.filter((m) => m.role === "toolResult").reduce((n, m) => n + tokensOfChars(len(m)), 0);
    expect(frontierGapTokens(branch, lost, S)).toBe(all);
  });

  it("gap skips protected results using the calling assistant's args", () => {
    const settings = normalizeSettings({ protectedPaths: ["**/skills/**/*.md"] });
    const branch = [
      U(1),
      A(10, { id: "read_1", args: { path: "/a/skills/x/SKILL.md" } }),
      R(11, "read_1"),
      A(20, "read_2"),
      R(21, "read_2"),
    ];
    expect(frontierGapTokens(branch, createState(), settings)).toBe(tokensOfChars(len(branch[4])));
  });

  it("open-cycle thinking starts after the last text-only assistant; share uses the largest closed chain", () => {
    const big = "z".repeat(5000);
    const branch: AgentMessage[] = [
      U(1),
      A(10, "bash_1"),
      R(11, "bash_1", big),
      F(12, "ok", "old thought"),
      U(20),
      {
        role: "assistant",
        timestamp: 21,
        content: [
          { type: "thinking", thinking: "new" },
          { type: "toolCall", id: "x_1", name: "x", arguments: {} },
        ],
      },
    ];
    expect(openCycleThinkingTokens(branch)).toBe(tokensOfChars(len({ type: "thinking", thinking: "new" })));
    const total = branch.reduce((n, m) => n + len(m), 0);
    const chain = branch.slice(0, 4).reduce((n, m) => n + len(m), 0);
    expect(largestChainSharePct(branch, S)).toBe(Math.round((100 * chain) / total));
    expect(computeContextMetrics([], createState(), S)).toEqual({
      openCycleThinkingTokens: 0,
      largestChainSharePct: 0,
      frontierGapTokens: 0,
    });
  });

  it("reclaim percent uses chars/4 tokens (AS-57 numbers)", () => {
    expect(reclaimPercent(368_000, 56_000)).toBe(85);
    expect(reclaimPercent(0, 0)).toBe(0);
    expect(reclaimPercent(100, 200)).toBe(0);
  });
});
