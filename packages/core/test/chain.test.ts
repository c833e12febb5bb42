import { describe, expect, it } from "vitest";
import { detectChains, isSyntheticChainMessage, withClosingMessage } from "../src/chain-detect.ts";
import {
  DETERMINISTIC_BODY_HEADER,
  deterministicChainBody,
  nextBlockNumber,
  planChainCompression,
  selectEligibleChains,
  withFusedSummary,
  type ClosedChain,
  type DeterministicChainPlan,
} from "../src/chain-plan.ts";
import type { AgentMessage } from "../src/messages.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../src/settings.ts";
import { buildState, createState, recordsForId } from "../src/state.ts";
import { emptyStats, type ChainEntry, type SummaryEntry } from "../src/state-types.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { record } from "./support/builders.ts";

const S = DEFAULT_SETTINGS;
const NONE = new Set<string>();
const chainOf = (start: number, ...ids: string[]) => [
  U(start),
  ...ids.flatMap((id, i) => [A(start + 10 + i * 10, id), R(start + 15 + i * 10, id, `raw ${id}`)]),
  F(start + 90),
];
const entry = (blockId: string, start: number): ChainEntry => ({
  blockId,
  startUserTimestamp: start,
  finalAssistantTimestamp: start + 90,
  droppedToolCallIds: [],
  toolRefs: [],
  compressedAt: 1,
});

describe("chain detection (CAP-CHAIN-1)", () => {
  it("emits closed and interrupted chains, never the trailing open one; synthetic chain messages start nothing", () => {
    const synthetic: AgentMessage = {
      role: "user",
      content: [{ type: "text", text: '  <compressed-chain id="b1" tools="t1">\nx\n</compressed-chain>' }],
      timestamp: 5,
    };
    const msgs = [
      U(1),
      synthetic,
      A(10, "bash_1"),
      R(11, "bash_1"),
      { role: "custom", customType: "x", content: "c", timestamp: 12 },
      F(13),
      U(20),
      A(21, "read_1"),
      R(22, "read_1"),
      U(30),
      A(31, "bash_2"),
      R(32, "bash_2"),
    ] as AgentMessage[];
    expect(isSyntheticChainMessage(synthetic)).toBe(true);
    const chains = detectChains(msgs, S);
    expect(chains).toHaveLength(2);
    expect(chains[0]).toMatchObject({
      startUserTimestamp: 1,
      finalAssistantTimestamp: 13,
      middleToolCallIds: ["bash_1"],
      middleOccurrenceKeys: ["bash_1@11"],
      startIndex: 0,
      endIndex: 5,
      interrupted: false,
    });
    expect(chains[1]).toMatchObject({
      startUserTimestamp: 20,
      finalAssistantTimestamp: null,
      interrupted: true,
      startIndex: 6,
      endIndex: 8,
    });
  });

  it("records protected ids by name/args on calls and by name on results", () => {
    const settings = normalizeSettings({ protectedTools: ["todowrite"] });
    const msgs = [
      U(1),
      A(10, "todowrite_1", { id: "read_1", args: { path: "a/skills/b/c.md" } }, "bash_1"),
      R(11, "todowrite_1"),
      R(12, "read_1"),
      R(13, "bash_1"),
      F(14),
    ];
    expect(detectChains(msgs, settings)[0]!.protectedToolCallIds).toEqual(["todowrite_1", "read_1"]);
  });

  it("AS-59: threading the unpersisted closing reply closes the newest chain, so exactly K stay raw", () => {
    const branch = [
      ...chainOf(100, "bash_1"),
      ...chainOf(200, "bash_2"),
      ...chainOf(300, "bash_3"),
      ...chainOf(400, "bash_4"),
      U(500),
      A(510, "bash_5"),
      R(515, "bash_5"),
    ];
    const closing = F(590);
    const without = selectEligibleChains(detectChains(branch, S), createState(), { rollingWindow: 3, graceKeys: NONE });
    expect(without.map((c) => c.startUserTimestamp)).toEqual([100]);
    const threaded = withClosingMessage(branch, closing);
    expect(threaded).toHaveLength(branch.length + 1);
    expect(withClosingMessage(threaded, closing)).toBe(threaded);
    const eligible = selectEligibleChains(detectChains(threaded, S), createState(), {
      rollingWindow: 3,
      graceKeys: NONE,
    });
    expect(eligible.map((c) => c.startUserTimestamp)).toEqual([100, 200]);
  });
});

describe("eligibility (CAP-CHAIN-3)", () => {
  const branch = [
    ...chainOf(100, "bash_1"),
    ...chainOf(200, "bash_2"),
    U(250),
    F(260),
    ...chainOf(300, "bash_3"),
    ...chainOf(400, "bash_4"),
    ...chainOf(500, "bash_5"),
  ];
  const chains = detectChains(branch, S);

  it("keeps the newest K candidates raw; compressed and empty chains do not count toward K", () => {
    expect(
      selectEligibleChains(chains, createState(), { rollingWindow: 3, graceKeys: NONE }).map(
        (c) => c.startUserTimestamp,
      ),
    ).toEqual([100, 200]);
    const state = buildState(1, [], [], [], [entry("b1", 100)], null, emptyStats());
    expect(
      selectEligibleChains(chains, state, { rollingWindow: 3, graceKeys: NONE }).map((c) => c.startUserTimestamp),
    ).toEqual([200]);
    expect(selectEligibleChains(chains, createState(), { rollingWindow: 0, graceKeys: NONE })).toHaveLength(5);
  });

  it("AS-43: a chain holding an in-grace recovery result is deferred and no other chain is promoted", () => {
    const eligible = selectEligibleChains(chains, createState(), {
      rollingWindow: 3,
      graceKeys: new Set(["bash_2@215"]),
    });
    expect(eligible.map((c) => c.startUserTimestamp)).toEqual([100]);
    const bare = selectEligibleChains(chains, createState(), { rollingWindow: 3, graceKeys: new Set(["bash_1"]) });
    expect(bare.map((c) => c.startUserTimestamp)).toEqual([200]);
    const other = selectEligibleChains(chains, createState(), { rollingWindow: 3, graceKeys: new Set(["bash_1@999"]) });
    expect(other.map((c) => c.startUserTimestamp)).toEqual([100, 200]);
  });

  it("next block id is b<max+1>", () => {
    expect(nextBlockNumber([entry("b2", 1), entry("b9", 2), entry("weird", 3)])).toBe(10);
    expect(nextBlockNumber([])).toBe(1);
  });
});

const planOpts = { compressedAt: 7777, settings: S };
function eligibleOf(messages: AgentMessage[], state = createState()): ClosedChain[] {
  return selectEligibleChains(detectChains(messages, S), state, { rollingWindow: 0, graceKeys: NONE });
}

describe("uncovered chains: deterministic body and backfill (CAP-CHAIN-8/9/10)", () => {
  const branch = [
    U(1_000_000),
    A(1_001_000, { id: "read_1", args: { path: "src/a.ts" } }),
    R(1_002_000, "read_1", "A"),
    A(1_010_000, { id: "bash_1", args: { command: "x".repeat(300) } }, { id: "read_2", args: { path: "b.ts" } }),
    R(1_011_000, "bash_1", "B"),
    R(1_012_000, "read_2", "C"),
    F(1_020_000),
  ];

  it("AS-35: no per-batch summary -> fresh backfilled records with refs, deterministic entry, zero LLM input", () => {
    const state = buildState(1, [record("old_1", 5, { shortRef: "t4" })], [], [], [entry("b2", 5)], null, emptyStats());
    const plan = planChainCompression(branch, eligibleOf(branch, state), state, planOpts);
    expect(plan.items).toHaveLength(1);
    const item = plan.items[0] as DeterministicChainPlan;
    expect(item.kind).toBe("deterministic");
    expect(item.blockId).toBe("b3");
    expect(plan.nextBlock).toBe(4);
    expect(item.fresh.map((r) => [r.key, r.shortRef, r.turnIndex, r.timestamp, r.backfilled, r.resultText])).toEqual([
      ["read_1@1002000", "t5", -1, 1_002_000, true, "A"],
      ["bash_1@1011000", "t6", -1, 1_011_000, true, "B"],
      ["read_2@1012000", "t7", -1, 1_012_000, true, "C"],
    ]);
    expect(plan.nextRef).toBe(8);
    expect(item.body).toBe(
      [
        DETERMINISTIC_BODY_HEADER,
        "Calls: 3",
        "Tools: read x2, bash x1",
        "Span: 1970-01-01T00:16:42.000Z -> 1970-01-01T00:16:52.000Z (10s)",
        'First: read {"path":"src/a.ts"}',
        'Last: read {"path":"b.ts"}',
        "Refs: t5, t6, t7",
      ].join("\n"),
    );
    expect(item.entry).toMatchObject({
      blockId: "b3",
      startUserTimestamp: 1_000_000,
      finalAssistantTimestamp: 1_020_000,
      toolRefs: ["t5", "t6", "t7"],
      compressedAt: 7777,
      rangeSummaryText: item.body,
      bodySource: "deterministic",
      droppedToolCallIds: ["read_1", "bash_1", "read_2"],
      droppedOccurrenceKeys: ["read_1@1002000", "bash_1@1011000", "read_2@1012000"],
    });
    // After the worker commits the plan, tN queries return the raw output.
    const after = buildState(
      2,
      [...state.records.values(), ...item.fresh],
      [],
      [],
      [...state.chains, item.entry],
      null,
      emptyStats(),
    );
    expect(recordsForId(after, "t6")[0]!.record.resultText).toBe("B");
    expect(after.canonicalByHash.size).toBe(0);
  });

  it("AS-36 (planning): records already indexed by an earlier attempt are composed from, with no second backfill", () => {
    const first = planChainCompression(branch, eligibleOf(branch), createState(), planOpts)
      .items[0] as DeterministicChainPlan;
    const retried = buildState(2, first.fresh, [], [], [], null, emptyStats());
    const again = planChainCompression(branch, eligibleOf(branch, retried), retried, planOpts)
      .items[0] as DeterministicChainPlan;
    expect(again.kind).toBe("deterministic");
    expect(again.fresh).toEqual([]);
    expect(again.indexed.map((r) => r.key)).toEqual(first.fresh.map((r) => r.key));
    expect(again.body).toBe(first.body);
  });

  it("stores oversized fresh outputs out of line with a preview and content hash", () => {
    const big = "line\n".repeat(20_000);
    const msgs = [U(1), A(10, "read_9"), R(11, "read_9", big), F(12)];
    const item = planChainCompression(msgs, eligibleOf(msgs), createState(), planOpts)
      .items[0] as DeterministicChainPlan;
    expect(item.fresh[0]!.resultText).toBe("");
    expect(item.fresh[0]!.stored!.bytes).toBe(big.length);
    expect(item.fresh[0]!.stored!.preview.length).toBeLessThanOrEqual(2048);
    expect(item.storedBodies.get("read_9@11")).toBe(big);
  });

  it("AS-37: only protected middles -> plain skip without diagnostic; unresolvable span -> backfill-empty", () => {
    const settings = normalizeSettings({ protectedTools: ["todowrite"] });
    const prot = [U(1), A(10, "todowrite_1"), R(11, "todowrite_1"), F(12)];
    const chains = selectEligibleChains(detectChains(prot, settings), createState(), {
      rollingWindow: 0,
      graceKeys: NONE,
    });
    expect(planChainCompression(prot, chains, createState(), { ...planOpts, settings }).items).toEqual([
      { kind: "skip", chain: chains[0], reason: "no-summary" },
    ]);
    // Start timestamp matches two user messages in the detection array: the span cannot be resolved.
    const dup = [U(1), A(10, "bash_1"), R(11, "bash_1"), F(12), U(1), F(20)];
    const eligible = eligibleOf(dup).filter((c) => c.middleToolCallIds.length > 0);
    const plan = planChainCompression(dup, eligible, createState(), planOpts);
    expect(plan.items[0]).toMatchObject({
      kind: "skip",
      reason: "no-summary",
      diagnostic: { kind: "backfill-empty", dedupKey: "1", detail: "middles=1" },
    });
    expect(plan.nextBlock).toBe(1);
  });

  it("body excerpt cuts long args at 200 chars and falls back to bare ids without refs", () => {
    const body = deterministicChainBody(
      [{ toolCallId: "bash_1", toolName: "bash", args: { command: "x".repeat(300) }, timestamp: 0 }],
      [],
    );
    const first = body.split("\n")[4]!;
    expect(first.length).toBe("First: bash ".length + 203);
    expect(first.endsWith("...")).toBe(true);
    expect(body.split("\n")[6]).toBe("Refs: bash_1");
  });
});

describe("covered chains (CAP-CHAIN-5/6/7)", () => {
  const branch = [...chainOf(100, "bash_1", "bash_2"), ...chainOf(200, "bash_3")];
  const summary = (id: string, text: string, coverage: string[]): SummaryEntry => ({
    id,
    text,
    refs: [],
    coverage,
    toolNames: ["bash"],
    turnIndex: 0,
    timestamp: 0,
  });
  const records = [
    record("bash_1", 115, { shortRef: "t1" }),
    record("bash_2", 125, { shortRef: "t2" }),
    record("bash_3", 215, { shortRef: "t3" }),
  ];

  it("AS-38 (planning): two distinct summaries with fusion on -> fuse; one summary -> no fusion", () => {
    const state = buildState(
      1,
      records,
      [
        summary("s1", "one", ["bash_1@115"]),
        summary("s2", "two", ["bash_2@125"]),
        summary("s3", "three", ["bash_3@215"]),
      ],
      [],
      [],
      null,
      emptyStats(),
    );
    const plan = planChainCompression(branch, eligibleOf(branch, state), state, planOpts);
    expect(plan.items.map((i) => i.kind)).toEqual(["covered", "covered"]);
    const [a, b] = plan.items as Extract<(typeof plan.items)[number], { kind: "covered" }>[];
    expect(a).toMatchObject({ blockId: "b1", summaryTexts: ["one", "two"], fuse: true });
    expect(a!.entry).toMatchObject({ toolRefs: ["t1", "t2"], bodySource: "concat" });
    expect(a!.entry.rangeSummaryText).toBeUndefined();
    expect(b).toMatchObject({ blockId: "b2", summaryTexts: ["three"], fuse: false });
    expect(withFusedSummary(a!.entry, "  fused  ")).toMatchObject({ rangeSummaryText: "fused", bodySource: "llm" });
    expect(withFusedSummary(a!.entry, null)).toBe(a!.entry);
    expect(withFusedSummary(a!.entry, "   ")).toBe(a!.entry);
    const off = planChainCompression(branch, eligibleOf(branch, state), state, {
      ...planOpts,
      settings: normalizeSettings({ chainCompression: { fuseRangeSummary: false } }),
    });
    expect((off.items[0] as { fuse: boolean }).fuse).toBe(false);
  });

  it("partial coverage takes the covered path; a summary covering two keys counts once", () => {
    const state = buildState(
      1,
      records,
      [summary("s1", "both", ["bash_1@115", "bash_2@125"])],
      [],
      [],
      null,
      emptyStats(),
    );
    const plan = planChainCompression(branch, eligibleOf(branch, state).slice(0, 1), state, planOpts);
    expect(plan.items[0]).toMatchObject({ kind: "covered", summaryTexts: ["both"], fuse: false });
  });
});
