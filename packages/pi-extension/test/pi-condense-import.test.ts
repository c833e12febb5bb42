/**
 * Reading pi-condense's session entries (CAP-PERSIST-1) and its `contextPrune` settings into Condense's
 * state, on entries built as the spec describes: the reload rules (last frontier with an id wins, last
 * stats snapshot wins, aliases inherit the original's ref), legacy summaries, backfilled refs, spills.
 */
import { describe, expect, it } from "vitest";
import { importFromPiCondense, piCondenseSummaryId, settingsFromContextPrune } from "../src/pi-condense-import.ts";

const rec = (id: string, ts: number | undefined, extra: Record<string, unknown> = {}) => ({
  toolCallId: id,
  toolName: "bash",
  args: { command: `run ${id}` },
  resultText: `output of ${id}`,
  isError: false,
  turnIndex: 0,
  timestamp: 1,
  ...(ts !== undefined ? { resultTimestamp: ts } : {}),
  ...extra,
});
const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data });
const summary = (refs: unknown[], text = "- summary", extra: Record<string, unknown> = {}) => ({
  type: "custom_message",
  customType: "context-prune-summary",
  content: text,
  display: false,
  details: { toolCallRefs: refs, toolNames: ["bash"], turnIndex: 0, timestamp: 5, ...extra },
});

describe("importFromPiCondense", () => {
  it("is null for a branch pi-condense never touched", () => {
    expect(importFromPiCondense([{ type: "message" }, custom("condense-diagnostic", {})])).toBeNull();
  });

  it("records take their refs and summary ids from the summaries; aliases inherit; the last frontier with an id and the last stats win", () => {
    const refs = [
      { shortId: "t1", toolCallId: "bash_1", resultTimestamp: 100 },
      { shortId: "t2", toolCallId: "bash_1", resultTimestamp: 200 },
    ];
    const r = importFromPiCondense([
      custom("context-prune-index", { toolCalls: [rec("bash_1", 100), rec("bash_1", 200)] }),
      summary(refs, [
        { type: "text", text: "- `t1` one" },
        { type: "text", text: "- `t2` two" },
      ] as never),
      custom("context-prune-frontier", {
        lastAttemptedToolCallId: "bash_1",
        lastAttemptedTurnIndex: 1,
        outcome: "summarized",
      }),
      custom("context-prune-stats", { totalInputTokens: 1, callCount: 1 }),
      custom("context-prune-dedup-alias", {
        newToolCallId: "bash_9",
        originalToolCallId: "bash_1",
        newResultTimestamp: 900,
        originalResultTimestamp: 100,
      }),
      custom("context-prune-dedup-alias", { newToolCallId: "x", originalToolCallId: "not-indexed" }),
      custom("context-prune-frontier", { lastAttemptedToolName: "bash" }),
      custom("context-prune-stats", {
        totalInputTokens: 7,
        totalOutputTokens: 3,
        totalCost: 0.5,
        callCount: 2,
        chainsCompressed: 1,
        rangesSummarized: 1,
      }),
    ])!;
    const id = piCondenseSummaryId({ toolCallRefs: refs })!;
    expect(r.records.map((x) => [x.key, x.shortRef, x.summaryId])).toEqual([
      ["bash_1@100", "t1", id],
      ["bash_1@200", "t2", id],
    ]);
    expect(r.summaries).toEqual([
      {
        id,
        text: "- `t1` one\n- `t2` two",
        refs,
        coverage: ["bash_1@100", "bash_1@200"],
        toolNames: ["bash"],
        turnIndex: 0,
        timestamp: 5,
      },
    ]);
    expect(r.aliases).toEqual([{ key: "bash_9@900", originalKey: "bash_1@100" }]);
    expect(r.frontier).toMatchObject({
      lastAttemptedToolCallId: "bash_1",
      lastAttemptedTurnIndex: 1,
      outcome: "summarized",
      attemptedBatchCount: 0,
    });
    expect(r.stats).toEqual({
      totalInputTokens: 7,
      totalOutputTokens: 3,
      totalCost: 0.5,
      callCount: 2,
      chainsCompressed: 1,
      rangesSummarized: 1,
    });
    // the same entries, the same import id
    expect(
      importFromPiCondense([
        custom("context-prune-index", { toolCalls: [rec("bash_1", 100), rec("bash_1", 200)] }),
        summary(refs),
      ])!.summaries[0]!.id,
    ).toBe(id);
  });

  it("reads legacy summaries (toolCallIds), backfilled refs, chains and spilled records", () => {
    const r = importFromPiCondense(
      [
        custom("context-prune-index", { toolCalls: [rec("old_1", undefined)] }),
        {
          type: "custom_message",
          customType: "context-prune-summary",
          content: "- legacy",
          details: { toolCallIds: ["old_1"], toolNames: ["bash"], turnIndex: 0, timestamp: 1 },
        },
        custom("context-prune-index", {
          toolCalls: [rec("bf_1", 300, { turnIndex: -1 })],
          backfilled: true,
          refs: [{ shortId: "t7", toolCallId: "bf_1", resultTimestamp: 300 }],
        }),
        custom("context-prune-index", {
          toolCalls: [
            rec("big_1", 400, {
              resultText: "",
              spillPath: "/blobs/big_1.txt",
              spillBytes: 70000,
              resultPreview: "head of big",
            }),
          ],
        }),
        custom("context-prune-chain", {
          blockId: "b2",
          startUserTimestamp: 50,
          finalAssistantTimestamp: 90,
          droppedToolCallIds: ["bf_1"],
          toolRefs: ["t7"],
          compressedAt: 95,
          bodySource: "deterministic",
        }),
      ],
      (path) => (path === "/blobs/big_1.txt" ? "the whole big body" : null),
    )!;
    const byKey = new Map(r.records.map((x) => [x.key, x]));
    expect(byKey.get("old_1")).toMatchObject({ summaryId: piCondenseSummaryId({ toolCallIds: ["old_1"] }) });
    expect(byKey.get("old_1")!.shortRef).toBeUndefined(); // a legacy ref is the raw id, not a tN
    expect(byKey.get("bf_1@300")).toMatchObject({ shortRef: "t7", backfilled: true });
    expect(byKey.get("big_1@400")).toMatchObject({
      resultText: "",
      stored: { bytes: 70000, preview: "head of big" },
      storedBody: "the whole big body",
    });
    expect(byKey.get("big_1@400")!.shortRef).toBeUndefined();
    expect(r.chains).toEqual([
      {
        startUserTimestamp: 50,
        finalAssistantTimestamp: 90,
        droppedToolCallIds: ["bf_1"],
        toolRefs: ["t7"],
        compressedAt: 95,
        bodySource: "deterministic",
      },
    ]);
  });
});

describe("settingsFromContextPrune", () => {
  it("keeps pi-condense's values, renames the status-line key and keeps unknown keys", () => {
    const s = settingsFromContextPrune({
      enabled: true,
      showPruneStatusLine: false,
      minBatchChars: 500,
      protectedTools: ["write"],
      thinkingStrip: { keepLastTurns: 2 },
    });
    expect(s).toMatchObject({
      enabled: true,
      showStatusLine: false,
      minBatchChars: 500,
      protectedTools: ["write"],
      thinkingStrip: { keepLastTurns: 2 },
    });
    expect(s.showPruneStatusLine).toBeUndefined();
  });
});
