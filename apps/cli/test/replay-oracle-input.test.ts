/**
 * The oracle's turn model: a summary covering the results of several turns is shared among those
 * turns in proportion to the results it covers, not charged to the first one.
 */
import { A, R, S, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { scheduleSessionOf } from "../src/replay/oracle-input.ts";

const user = U(0, "go", { plain: true });

describe("the oracle's view of a replayed session", () => {
  it("shares a summary among the turns whose results it covers, in proportion to their size", () => {
    const raw = [user, A(1, "a"), R(2, "a", "A".repeat(4000)), A(3, "b"), R(4, "b", "B".repeat(12_000))];
    const summary = S(5, ["a", "b"], "S".repeat(1600));
    const rendered = [user, A(1, "a"), R(2, "a", "[stub]"), A(3, "b"), R(4, "b", "[stub]"), summary];
    // Requests: the first sees the user's message, the second turn 0's result, the third turn 1's.
    const calls = [1, 3, 5].map((messages) => ({ rawTokens: 0, messages, cold: false, outputTokens: 0 }));
    let chars = 0;
    calls[0]!.rawTokens = 10;
    for (const [k, upTo] of [
      [1, 3],
      [2, 5],
    ] as const) {
      chars = raw.slice(0, upTo).reduce((n, m) => n + JSON.stringify(m).length + 1, 0);
      calls[k]!.rawTokens = Math.round(chars / 4);
    }
    const s = scheduleSessionOf(raw, rendered, calls);
    const reclaimA = s.raw[0]! - s.cond[0]!;
    const reclaimB = s.raw[1]! - s.cond[1]!;
    // Each turn reclaims its result net of its share of the summary; the larger result carries more of it.
    expect(reclaimA).toBeGreaterThan(0);
    expect(reclaimB).toBeGreaterThan(reclaimA);
    const summaryTokens = Math.round((JSON.stringify(summary).length + 1) / 4);
    const stubbedTokens = Math.round(
      (JSON.stringify(R(2, "a", "A".repeat(4000))).length - JSON.stringify(R(2, "a", "[stub]")).length) / 4,
    );
    // Turn 0's share of the summary is about a quarter (4 000 of 16 000 result characters).
    expect(stubbedTokens - reclaimA).toBeGreaterThan(0.2 * summaryTokens);
    expect(stubbedTokens - reclaimA).toBeLessThan(0.3 * summaryTokens);
  });

  it("the prompt in front of the first request belongs to no turn: a long one does not make turn 0 look larger condensed", () => {
    const prompt = U(0, "P".repeat(20_000), { plain: true });
    const raw = [prompt, A(1, "a"), R(2, "a", "A".repeat(4000)), A(3, "b"), R(4, "b", "ok")];
    const rendered = [prompt, A(1, "a"), R(2, "a", "[stub]"), A(3, "b"), R(4, "b", "ok")];
    const sizes = (upTo: number) =>
      Math.round(raw.slice(0, upTo).reduce((n, m) => n + JSON.stringify(m).length + 1, 1) / 4);
    const calls = [1, 3, 5].map((messages) => ({ rawTokens: sizes(messages), messages, cold: false, outputTokens: 0 }));
    const s = scheduleSessionOf(raw, rendered, calls);
    // Turn 0 reclaims its stubbed result; the 5 000-token prompt is counted in neither its raw nor its condensed size.
    const stubbed = Math.round((JSON.stringify(raw[2]).length - JSON.stringify(rendered[2]).length) / 4);
    expect(s.raw[0]! - s.cond[0]!).toBeGreaterThan(stubbed - 5);
    expect(s.raw[0]! - s.cond[0]!).toBeLessThan(stubbed + 5);
    expect(s.cond[1]).toBe(s.raw[1]);
  });
});
