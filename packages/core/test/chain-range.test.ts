import { describe, expect, it } from "vitest";
import { rangeIndex, readBoundaries, resolveRanges, resolveWith } from "../src/chain-range.ts";

const user = (timestamp: number) => ({ role: "user", content: "u", timestamp });
const assistant = (timestamp: number) => ({ role: "assistant", content: [], timestamp });
const result = (timestamp: number) => ({ role: "toolResult", toolCallId: "c", content: [], timestamp });
const entry = { startUserTimestamp: 10, finalAssistantTimestamp: 40 };

describe("chain range resolver (CAP-RENDER-9, fail closed)", () => {
  it("resolves a span whose boundaries each occur once, start first", () => {
    const messages = [user(10), assistant(20), result(30), assistant(40)];
    expect(resolveRanges(messages, [entry])).toEqual([{ startIndex: 0, endIndex: 3 }]);
  });

  it("leaves an entry unresolved when a boundary repeats, is missing or comes out of order", () => {
    expect(resolveRanges([user(10), assistant(20), user(10), assistant(40)], [entry])).toEqual([null]);
    expect(resolveRanges([user(10), assistant(40), assistant(40)], [entry])).toEqual([null]);
    expect(resolveRanges([user(10), assistant(20)], [entry])).toEqual([null]);
    expect(resolveRanges([assistant(40), user(10)], [entry])).toEqual([null]);
    expect(
      resolveRanges([user(10), assistant(40)], [{ startUserTimestamp: 10, finalAssistantTimestamp: null }]),
    ).toEqual([null]);
  });

  it("is role-gated: a tool result sharing a boundary's millisecond never counts", () => {
    expect(resolveRanges([user(10), result(10), assistant(40), result(40)], [entry])).toEqual([
      { startIndex: 0, endIndex: 2 },
    ]);
  });

  it("resolves every render against one index with fresh tallies", () => {
    const index = rangeIndex([entry]);
    const ok = readBoundaries([user(10), assistant(40)]);
    const repeated = readBoundaries([user(10), user(10), assistant(40)]);
    expect(resolveWith(index, ok)).toEqual([{ startIndex: 0, endIndex: 1 }]);
    expect(resolveWith(index, repeated)).toEqual([null]);
    expect(resolveWith(index, ok)).toEqual([{ startIndex: 0, endIndex: 1 }]);
    // a start the caller says is not one (the render's own synthetics) is left out of the count
    expect(resolveWith(index, repeated, (i) => i === 1)).toEqual([{ startIndex: 0, endIndex: 2 }]);
  });
});
