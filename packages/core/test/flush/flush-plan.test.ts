import { describe, expect, it } from "vitest";
import {
  assembleFlush,
  contentHash,
  DEFAULT_SETTINGS,
  planFlush,
  type BatchSummaryResult,
  type CapturedBatch,
  type CapturedToolCall,
} from "../../src/index.ts";

const call = (id: string, ts: number, text: string, toolName = "read"): CapturedToolCall => ({
  toolCallId: id,
  toolName,
  args: { path: `/src/${id}.ts` },
  resultText: text,
  isError: false,
  resultTimestamp: ts,
});
const batch = (turnIndex: number, calls: CapturedToolCall[]): CapturedBatch => ({
  turnIndex,
  timestamp: 1000 * turnIndex,
  assistantText: "",
  toolCalls: calls,
});
const settings = { ...DEFAULT_SETTINGS };
const big = (c: string) => c.repeat(1500);
const summaryId = (keys: readonly string[]) => `s:${keys.join(",")}`;
const ok = (refs: string[], text = "- short summary"): BatchSummaryResult => ({ text, refs });

describe("planFlush / assembleFlush", () => {
  it("AS-10: identical output (modulo trailing whitespace/CRLF) from an earlier flush becomes an alias, no LLM call, skipped-deduped", () => {
    const x = `${big("a")}\r\nline  \n`;
    const canonical = new Map([[contentHash("read", x), "read_1@150"]]);
    const plan = planFlush({
      batches: [batch(3, [call("read_9", 950, `${big("a")}\nline\n`)])],
      settings,
      canonicalByHash: canonical,
    });
    expect(plan.refsNeeded).toBe(0);
    expect(plan.batches[0]!.kind).toBe("deduped");
    const out = assembleFlush({ plan, results: new Map(), summaryId });
    expect(out.outcome).toBe("skipped-deduped");
    expect(out.aliases).toEqual([{ key: "read_9@950", originalKey: "read_1@150" }]);
    expect(out.frontier?.lastAttemptedToolCallId).toBe("read_9");
  });

  it("AS-11: a reused id with different content is not conflated", () => {
    const plan = planFlush({
      batches: [batch(1, [call("bash_23", 1150, big("x"))]), batch(2, [call("bash_23", 2150, big("y"))])],
      settings,
      canonicalByHash: new Map(),
    });
    expect(plan.batches.map((b) => b.kind)).toEqual(["summarize", "summarize"]);
    expect(plan.refsNeeded).toBe(2);
    const out = assembleFlush({
      plan,
      results: new Map([
        [0, ok(["t1"])],
        [1, ok(["t2"])],
      ]),
      summaryId,
    });
    expect(out.records.map((r) => [r.key, r.shortRef])).toEqual([
      ["bash_23@1150", "t1"],
      ["bash_23@2150", "t2"],
    ]);
  });

  it("AS-12 (Condense differs on purpose): identical outputs in one flush dedup against the earlier batch", () => {
    const plan = planFlush({
      batches: [batch(1, [call("r1", 100, big("z"))]), batch(2, [call("r2", 200, big("z"))])],
      settings,
      canonicalByHash: new Map(),
    });
    expect(plan.batches.map((b) => b.kind)).toEqual(["summarize", "deduped"]);
    const out = assembleFlush({ plan, results: new Map([[0, ok(["t1"])]]), summaryId });
    expect(out.aliases).toEqual([{ key: "r2@200", originalKey: "r1@100" }]);
    expect(out.outcome).toBe("summarized");
  });

  it("a within-flush alias whose original's batch failed stays pending", () => {
    const plan = planFlush({
      batches: [batch(1, [call("r1", 100, big("z"))]), batch(2, [call("r2", 200, big("z"))])],
      settings,
      canonicalByHash: new Map(),
    });
    const out = assembleFlush({ plan, results: new Map([[0, null]]), summaryId });
    expect(out.outcome).toBe("error");
    expect(out.aliases).toEqual([]);
    expect(out.dispositions.map((d) => d.status)).toEqual(["pending", "pending"]);
  });

  it("AS-13: a batch under minBatchChars is trivial: no LLM call, no record, skipped-trivial", () => {
    const plan = planFlush({
      batches: [batch(1, [call("a", 1, "x".repeat(400))])],
      settings,
      canonicalByHash: new Map(),
    });
    expect(plan.batches[0]!.kind).toBe("trivial");
    expect(plan.refsNeeded).toBe(0);
    const out = assembleFlush({ plan, results: new Map(), summaryId });
    expect(out.outcome).toBe("skipped-trivial");
    expect(out.records).toEqual([]);
    expect(out.frontier?.outcome).toBe("skipped-trivial");
  });

  it("AS-14: a summary longer than the raw output writes nothing and burns its refs", () => {
    const plan = planFlush({
      batches: [batch(1, [call("a", 1, "y".repeat(1000))])],
      settings,
      canonicalByHash: new Map(),
    });
    const out = assembleFlush({ plan, results: new Map([[0, ok(["t4"], "s".repeat(1001))]]), summaryId });
    expect(out.outcome).toBe("skipped-oversized");
    expect(out.records).toEqual([]);
    expect(out.summaries).toEqual([]);
  });

  it("AS-22: batches A, B, C with B failing: A committed, frontier at A, B and C stay pending", () => {
    const plan = planFlush({
      batches: [
        batch(1, [call("a", 1, big("a"))]),
        batch(2, [call("b", 2, big("b"))]),
        batch(3, [call("c", 3, big("c"))]),
      ],
      settings,
      canonicalByHash: new Map(),
    });
    const out = assembleFlush({
      plan,
      results: new Map([
        [0, ok(["t1"])],
        [1, null],
        [2, ok(["t3"])],
      ]),
      summaryId,
    });
    expect(out.outcome).toBe("summarized");
    expect(out.processedBatches).toBe(1);
    expect(out.records.map((r) => r.key)).toEqual(["a@1"]);
    expect(out.frontier?.lastAttemptedToolCallId).toBe("a");
    expect(out.dispositions.filter((d) => d.status === "pending").map((d) => d.key)).toEqual(["b@2", "c@3"]);
  });

  it("oversized results are stored out of line with a preview and no ref; a later identical one aliases to it", () => {
    const huge = "L\n".repeat(40_000);
    const plan = planFlush({
      batches: [batch(1, [call("r", 5, huge)]), batch(2, [call("r2", 6, huge)])],
      settings,
      canonicalByHash: new Map(),
    });
    expect(plan.batches[0]!.kind).toBe("stored-only");
    expect(plan.batches[1]!.kind).toBe("deduped");
    const out = assembleFlush({ plan, results: new Map(), summaryId });
    expect(out.records).toHaveLength(1);
    expect(out.records[0]!.resultText).toBe("");
    expect(out.records[0]!.stored!.bytes).toBe(80_000);
    expect(out.records[0]!.stored!.preview.length).toBeLessThanOrEqual(2048);
    expect(out.records[0]!.shortRef).toBeUndefined();
    expect(out.aliases).toEqual([{ key: "r2@6", originalKey: "r@5" }]);
  });

  it("is deterministic: the same inputs assemble the same rows", () => {
    const mk = () =>
      planFlush({
        batches: [batch(1, [call("a", 1, big("a")), call("b", 2, big("b"))])],
        settings,
        canonicalByHash: new Map(),
      });
    const r = new Map([[0, ok(["t1", "t2"])]]);
    expect(assembleFlush({ plan: mk(), results: r, summaryId })).toEqual(
      assembleFlush({ plan: mk(), results: r, summaryId }),
    );
  });
});
