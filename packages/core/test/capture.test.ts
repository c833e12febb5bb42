import { describe, expect, it } from "vitest";
import {
  capturePendingBatches,
  captureTurn,
  groupBatches,
  rescanBranch,
  trimBatch,
  NO_RESULT_TEXT,
} from "../src/capture.ts";
import type { CapturedBatch } from "../src/capture-types.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../src/settings.ts";
import { applyDelta, buildState, createState, isCovered, isSummarized } from "../src/state.ts";
import { STATE_DELTA_FORMAT } from "../src/state-delta.ts";
import { emptyStats, type Frontier } from "../src/state-types.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { record } from "./support/builders.ts";

const S = DEFAULT_SETTINGS;
const stateWith = (records: ReturnType<typeof record>[], frontier: Frontier | null = null) =>
  buildState(1, records, [], [], [], frontier, emptyStats());
const frontierAt = (turn: number, id: string): Frontier => ({
  lastAttemptedToolCallId: id,
  lastAttemptedToolName: "bash",
  lastAttemptedTurnIndex: turn,
  lastAttemptedTimestamp: 0,
  attemptedBatchCount: 1,
  attemptedToolCallCount: 1,
  rawCharCount: 0,
  summaryCharCount: 0,
  outcome: "summarized",
});

describe("rescan capture (CAP-CAPTURE-6)", () => {
  it("AS-07: a reused id yields one batch per turn, each occurrence with its own result timestamp", () => {
    const branch = [
      U(1000),
      A(1100, "bash_23"),
      R(1150, "bash_23", "FIRST"),
      A(2100, "bash_23"),
      R(2150, "bash_23", "SECOND"),
    ];
    const asked: string[] = [];
    const state = createState();
    const spy = {
      ...state,
      records: new Proxy(state.records as Map<string, unknown>, {
        get(target, prop) {
          if (prop === "has")
            return (k: string) => {
              asked.push(k);
              return target.has(k);
            };
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      }),
    } as typeof state;
    const batches = rescanBranch(branch, spy, S);
    expect(batches).toHaveLength(2);
    expect(batches.map((b) => [b.turnIndex, b.toolCalls[0]!.resultText, b.toolCalls[0]!.resultTimestamp])).toEqual([
      [0, "FIRST", 1150],
      [1, "SECOND", 2150],
    ]);
    expect(asked).toContain("bash_23@1150");
    expect(asked).toContain("bash_23@2150");
    expect(asked).not.toContain("bash_23");
  });

  it("AS-08: a result outside its own turn window is never paired; a call without result is not captured", () => {
    const branch = [U(900), A(1000, "bash_23"), A(1100, "other_1"), R(1150, "bash_23")];
    expect(rescanBranch(branch, createState(), S)).toEqual([]);
  });

  it("AS-09: a live occurrence of an id summarized earlier is captured under its own key", () => {
    const state = stateWith([record("bash_23", 2150, { resultText: "OLD" })]);
    const branch = [
      U(1000),
      A(2100, "bash_23"),
      R(2150, "bash_23", "OLD"),
      A(3100, "bash_23"),
      R(3150, "bash_23", "LIVE"),
    ];
    const batches = rescanBranch(branch, state, S);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.toolCalls[0]).toMatchObject({
      toolCallId: "bash_23",
      resultTimestamp: 3150,
      resultText: "LIVE",
    });
    const after = stateWith([
      record("bash_23", 2150, { resultText: "OLD" }),
      record("bash_23", 3150, { resultText: "LIVE" }),
    ]);
    expect(isSummarized(after, "bash_23@3150")).toBe(true);
    expect(after.records.get("bash_23@2150")!.resultText).toBe("OLD");
    expect(after.records.get("bash_23@3150")!.resultText).toBe("LIVE");
  });

  it("takes the finished subset of a running turn and counts every assistant in turnIndex", () => {
    const branch = [U(1), F(2), U(3), A(10, "a_1", "b_1"), R(11, "a_1")];
    const [batch] = rescanBranch(branch, createState(), S);
    expect(batch!.turnIndex).toBe(1);
    expect(batch!.userTurnGroup).toBe(2);
    expect(batch!.toolCalls.map((c) => c.toolCallId)).toEqual(["a_1"]);
  });

  it("drops protected calls by tool name and by path glob", () => {
    const settings = normalizeSettings({ protectedTools: ["todowrite"] });
    const branch = [
      U(1),
      A(
        10,
        { id: "todowrite_1" },
        { id: "read_1", args: { path: "/x/skills/a/SKILL.md" } },
        { id: "read_2", args: { path: "src/a.ts" } },
      ),
      R(11, "todowrite_1"),
      R(12, "read_1"),
      R(13, "read_2"),
    ];
    const [batch] = rescanBranch(branch, createState(), settings);
    expect(batch!.toolCalls.map((c) => c.toolCallId)).toEqual(["read_2"]);
  });
});

describe("live capture (CAP-CAPTURE-5)", () => {
  it("pairs calls with the first result of their id and stamps the batch with the supplied clock", () => {
    const msg = A(500, "bash_1", "read_1");
    const results = [R(510, "bash_1", "one"), R(511, "bash_1", "dup"), R(512, "read_1", "two")];
    const batch = captureTurn({ message: msg, toolResults: results, turnIndex: 4, now: 99_000 }, createState(), S)!;
    expect(batch.timestamp).toBe(99_000);
    expect(batch.turnIndex).toBe(4);
    expect(batch.toolCalls.map((c) => [c.toolCallId, c.resultText, c.resultTimestamp])).toEqual([
      ["bash_1", "one", 510],
      ["read_1", "two", 512],
    ]);
  });

  it("marks a call without result as `(no result)` and trims calls already indexed", () => {
    const msg = A(500, "bash_1", "bash_2");
    const batch = captureTurn(
      { message: msg, toolResults: [R(510, "bash_1")], turnIndex: 0, now: 1 },
      stateWith([]),
      S,
    )!;
    expect(batch.toolCalls[1]).toMatchObject({ toolCallId: "bash_2", resultText: NO_RESULT_TEXT, isError: false });
    expect(batch.toolCalls[1]!.resultTimestamp).toBeUndefined();
    const none = captureTurn(
      { message: A(1, "bash_1"), toolResults: [R(510, "bash_1")], turnIndex: 0, now: 1 },
      stateWith([record("bash_1", 510)]),
      S,
    );
    expect(none).toBeNull();
  });
});

describe("coverage trim (replaces CAP-CAPTURE-8's turn-index frontier)", () => {
  const batch = (turnIndex: number, ...ids: string[]): CapturedBatch => ({
    turnIndex,
    timestamp: 0,
    assistantText: "",
    toolCalls: ids.map((id, i) => ({
      toolCallId: id,
      toolName: "bash",
      args: {},
      resultText: "x",
      isError: false,
      resultTimestamp: 100 * turnIndex + i,
    })),
  });
  it("drops exactly the occurrences the service has (record, alias, settled skip), whatever the turn index", () => {
    const state = buildState(
      3,
      [record("c0", 100)],
      [],
      [{ key: "c1@101", originalKey: "c0@100" }],
      [],
      frontierAt(9, "zz"),
      emptyStats(),
      ["c2@102"],
    );
    expect(trimBatch(batch(1, "c0", "c1", "c2"), state)).toBeNull();
    expect(trimBatch(batch(1, "c0", "c1", "c2", "c3"), state)!.toolCalls.map((c) => c.toolCallId)).toEqual(["c3"]);
  });
  it("a frontier from a later turn (another branch, or before a compaction) never hides a new occurrence", () => {
    const state = stateWith([], frontierAt(40, "c1"));
    expect(trimBatch(batch(2, "c0", "c1"), state)!.toolCalls).toHaveLength(2);
    const live = captureTurn({ message: A(5, "c1"), toolResults: [R(6, "c1")], turnIndex: 3, now: 7 }, state, S);
    expect(live?.toolCalls.map((c) => c.toolCallId)).toEqual(["c1"]);
  });
  it("settled keys arrive with a delta and survive later deltas", () => {
    const base = buildState(1, [], [], [], [], null, emptyStats());
    const a = applyDelta(base, {
      format: STATE_DELTA_FORMAT,
      fromVersion: 1,
      toVersion: 2,
      records: [],
      summaries: [],
      aliases: [],
      chains: [],
      settled: ["x@1"],
    });
    if (!a.ok) throw new Error(a.message);
    const b = applyDelta(a.state, {
      format: STATE_DELTA_FORMAT,
      fromVersion: 2,
      toVersion: 3,
      records: [],
      summaries: [],
      aliases: [],
      chains: [],
      settled: ["y@2"],
    });
    if (!b.ok) throw new Error(b.message);
    expect([...b.state.settled].sort()).toEqual(["x@1", "y@2"]);
    expect(isCovered(b.state, "x@1")).toBe(true);
    expect(isCovered(b.state, "z@3")).toBe(false);
  });
});

describe("grouping (CAP-CAPTURE-7)", () => {
  it("agent-message merges consecutive batches of one user-turn-group; live batches break a merge", () => {
    const branch = [U(1), A(10, "a_1"), R(11, "a_1"), A(20, "b_1"), R(21, "b_1"), U(30), A(40, "c_1"), R(41, "c_1")];
    const raw = rescanBranch(branch, createState(), S);
    const merged = groupBatches(raw, "agent-message");
    expect(merged.map((b) => b.toolCalls.map((c) => c.toolCallId))).toEqual([["a_1", "b_1"], ["c_1"]]);
    expect(merged[0]!.turnIndex).toBe(1);
    expect(merged[0]!.timestamp).toBe(20);
    const live: CapturedBatch = { turnIndex: 9, timestamp: 0, assistantText: "", toolCalls: [] };
    expect(groupBatches([raw[0]!, live, raw[1]!], "agent-message")).toHaveLength(3);
    expect(groupBatches(raw, "whatever")).toHaveLength(3);
  });

  it("capturePendingBatches = rescan -> trim -> group", () => {
    const branch = [U(1), A(10, "a_1"), R(11, "a_1"), A(20, "b_1"), R(21, "b_1")];
    const settings = normalizeSettings({ batchingMode: "agent-message" });
    const out = capturePendingBatches(branch, buildState(1, [], [], [], [], null, emptyStats(), ["a_1@11"]), settings);
    expect(out.map((b) => b.toolCalls.map((c) => c.toolCallId))).toEqual([["b_1"]]);
  });
});
