import { describe, expect, it } from "vitest";
import { emptyLedger, recordDiagnostics } from "../../src/diagnostics.ts";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { compressedChainText, summaryStubText } from "../../src/texts.ts";
import { A, C, F, R, S, U } from "@condense/test-support/messages";
import { chain, rec, settings, state, summary, textOf } from "./fixtures.ts";

const opts = { settings: settings() };
const synthetics = (ms: readonly unknown[]) =>
  ms.filter((m) => (m as { role: string }).role === "user" && textOf(m).startsWith("<compressed-chain"));

/** Four closed chains n=1..4: U(n000) A(n100;bash_n) R(n150;bash_n) F(n200, thinking) S(n300 covering bash_n@n150). */
function fourChains() {
  const msgs = [];
  for (let n = 1; n <= 4; n++) {
    msgs.push(
      U(n * 1000),
      A(n * 1000 + 100, `bash_${n}`),
      R(n * 1000 + 150, `bash_${n}`),
      F(n * 1000 + 200, `answer ${n}`, `thinking ${n}`),
      S(n * 1000 + 300, [`bash_${n}@${n * 1000 + 150}`], `S${n}`),
    );
  }
  const records = [1, 2, 3, 4].map((n) => rec(`bash_${n}`, n * 1000 + 150, { shortRef: `t${n}`, summaryId: `s${n}` }));
  const summaries = [1, 2, 3, 4].map((n) => summary(`s${n}`, [`bash_${n}@${n * 1000 + 150}`], `S${n}`));
  return { msgs, records, summaries };
}

describe("phase 3: chain-range prune", () => {
  it("AS-25 the oldest compressed chain renders as one synthetic right after its start user", () => {
    const { msgs, records, summaries } = fourChains();
    const b1 = chain("b1", 1000, 1200, {
      droppedToolCallIds: ["bash_1"],
      droppedOccurrenceKeys: ["bash_1@1150"],
      toolRefs: ["t1"],
      compressedAt: 5000,
    });
    const r = pruneMessages(msgs, state({ records, summaries, chains: [b1] }), opts);
    const out = r.messages;
    expect(out[0]).toBe(msgs[0]);
    expect(out[1]).toEqual({
      role: "user",
      timestamp: 5000,
      content: [{ type: "text", text: compressedChainText("b1", ["t1"], "S1", "") }],
    });
    expect(textOf(out[1])).toBe('<compressed-chain id="b1" tools="t1">\nS1\n</compressed-chain>');
    // final assistant kept without thinking; middles and the per-batch summary gone
    expect(out[2]).toEqual({ ...msgs[3], content: [{ type: "text", text: "answer 1" }] });
    expect(out[3]).toBe(msgs[5]);
    expect(out.filter((m) => textOf(m) === "S1")).toHaveLength(0);
    // the raw chains keep their (stubbed) results, thinking and summaries
    expect(out).toHaveLength(msgs.length - 3 + 1);
    expect(textOf(out[5])).toBe(summaryStubText("t2"));
    expect((out[6] as { content: { type: string }[] }).content[0]!.type).toBe("thinking");
    expect(r.stats.chainsApplied).toBe(1);
    expect(r.diagnostics).toEqual([]);
  });

  it("AS-26 an unresolvable entry drops nothing and reports unresolved-range once across renders", () => {
    const { msgs } = fourChains();
    const dupStart = [...msgs.slice(0, 5), U(1000, "again"), ...msgs.slice(5)];
    let ledger = emptyLedger();
    for (const [arr, entry] of [
      [msgs, chain("b1", 1000, null)],
      [dupStart, chain("b1", 1000, 1200)],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const r = pruneMessages(arr, state({ chains: [entry] }), opts);
        expect(r.messages).toBe(arr);
        expect(synthetics(r.messages)).toHaveLength(0);
        expect(r.diagnostics).toEqual([
          {
            kind: "unresolved-range",
            dedupKey: "b1",
            detail: `blockId=b1 start=1000 final=${entry.finalAssistantTimestamp}`,
          },
        ]);
        ledger = recordDiagnostics(ledger, r.diagnostics).ledger;
      }
    }
    expect(ledger.counts["unresolved-range"]).toBe(1);
  });

  it("AS-27 a live turn reusing ids of compressed chains survives, with both results and no orphan", () => {
    const msgs = [
      U(1000),
      A(1100, "bash_18"),
      R(1150, "bash_18"),
      F(1200),
      U(2000),
      A(2100, "bash_23"),
      R(2150, "bash_23"),
      F(2200),
      U(3000),
      A(3100, "bash_23", "gauntlet_setting_24"),
      R(3150, "bash_23", "LIVE"),
      R(3160, "gauntlet_setting_24"),
    ];
    const st = state({
      chains: [
        chain("b5", 1000, 1200, { droppedToolCallIds: ["bash_18"] }),
        chain("b7", 2000, 2200, { droppedToolCallIds: ["bash_23"] }),
      ],
    });
    const r = pruneMessages(msgs, st, opts);
    expect(r.messages.slice(-4)).toEqual(msgs.slice(-4));
    expect(r.messages.slice(-3).every((m, i) => m === msgs[msgs.length - 3 + i])).toBe(true);
    expect(synthetics(r.messages)).toHaveLength(2);
    expect(r.messages).toHaveLength(msgs.length - 4 + 2);
    expect(r.stats.swept).toBe(0);
    expect(r.diagnostics).toEqual([]);
  });

  it("AS-28 applying the same entries to the output changes nothing", () => {
    const { msgs, records, summaries } = fourChains();
    const st = state({
      records,
      summaries,
      chains: [
        chain("b1", 1000, 1200, {
          droppedToolCallIds: ["bash_1"],
          droppedOccurrenceKeys: ["bash_1@1150"],
          toolRefs: ["t1"],
        }),
        chain("b2", 2000, 2200, {
          droppedToolCallIds: ["bash_2"],
          droppedOccurrenceKeys: ["bash_2@2150"],
          toolRefs: ["t2"],
        }),
      ],
    });
    const once = pruneMessages(msgs, st, opts);
    const twice = pruneMessages(once.messages, st, opts);
    expect(twice.messages).toEqual(once.messages);
    expect(twice.messages).toBe(once.messages);
    expect(twice.diagnostics).toEqual([]);
  });

  it("AS-29 a per-batch summary placed after the chain end is suppressed by coverage; a live reuse survives", () => {
    const msgs = [
      U(1000),
      A(1100, "bash_18"),
      R(1150, "bash_18"),
      F(1200),
      S(1300, ["bash_18@1150"], "late summary"),
      S(1400, ["bash_18@9150"], "live summary"),
      S(1500, ["bash_18"], "legacy summary", true),
    ];
    const r = pruneMessages(
      msgs,
      state({ chains: [chain("b1", 1000, 1200, { droppedToolCallIds: ["bash_18"] })] }),
      opts,
    );
    const texts = r.messages.map(textOf);
    expect(texts).not.toContain("late summary");
    expect(texts).not.toContain("legacy summary");
    expect(texts).toContain("live summary");
  });

  it("AS-30 a third-party custom message inside a compressed range survives", () => {
    const msgs = [U(1000), A(1100, "bash_1"), R(1150, "bash_1"), C(1160, "other-ext", "keep me"), F(1200)];
    const r = pruneMessages(
      msgs,
      state({ chains: [chain("b1", 1000, 1200, { droppedToolCallIds: ["bash_1"] })] }),
      opts,
    );
    expect(r.messages.map((m) => (m as { role: string }).role)).toEqual(["user", "user", "custom", "assistant"]);
    expect(r.messages[2]).toBe(msgs[3]);
  });

  it("AS-31 a nested entry is skipped as overlap; entries sharing a start give one synthetic", () => {
    const msgs = [U(1000), A(1100, "a_1"), R(1150, "a_1"), U(1300), A(1400, "a_2"), R(1450, "a_2"), F(1500), F(1600)];
    const b8 = chain("b8", 1000, 1600, { droppedToolCallIds: ["a_1", "a_2"] });
    const b9 = chain("b9", 1300, 1500, { droppedToolCallIds: ["a_2"] });
    const r = pruneMessages(msgs, state({ chains: [b8, b9] }), opts);
    expect(synthetics(r.messages).map((m) => textOf(m).slice(0, 25))).toEqual(['<compressed-chain id="b8"']);
    expect(r.diagnostics).toContainEqual({
      kind: "unresolved-range",
      dedupKey: "overlap:b9",
      detail: "blockId=b9 starts inside b8",
    });

    // The state keys chains by start (later wins): b10 replaces b5, one synthetic.
    const one = [U(1000), A(1100, "a_1"), R(1150, "a_1"), F(1200)];
    const b5 = chain("b5", 1000, 1200, { droppedToolCallIds: ["a_1"] });
    const b10 = chain("b10", 1000, 1200, { droppedToolCallIds: ["a_1"] });
    expect(synthetics(pruneMessages(one, state({ chains: [b5, b10] }), opts).messages)).toHaveLength(1);
    // A state that still carries both (e.g. hand-built) reports the second as claimed.
    const both = { ...state({ chains: [b5] }), chains: [b5, b10] };
    const r2 = pruneMessages(one, both, opts);
    expect(synthetics(r2.messages)).toHaveLength(1);
    expect(r2.diagnostics).toContainEqual({
      kind: "unresolved-range",
      dedupKey: "overlap:b10",
      detail: "blockId=b10 startIndex=0 already claimed by b5",
    });
  });

  it("AS-32 recorded ids that differ from the range are reported; the range still wins", () => {
    const msgs = [
      U(1000),
      A(1100, "bash_18"),
      R(1150, "bash_18"),
      F(1200),
      U(2000),
      A(2100, "ghost_1"),
      R(2150, "ghost_1"),
    ];
    const r = pruneMessages(
      msgs,
      state({ chains: [chain("b3", 1000, 1200, { droppedToolCallIds: ["bash_18", "ghost_1"] })] }),
      opts,
    );
    expect(r.messages.slice(3)).toEqual(msgs.slice(4));
    expect(r.diagnostics).toEqual([
      { kind: "range-id-mismatch", dedupKey: "b3", detail: "blockId=b3 recorded=2 actual=1" },
    ]);
  });

  it("AS-33 a protected result in a compressed range is relocated verbatim into the synthetic", () => {
    const msgs = [
      U(1000),
      A(1100, "bash_1", { id: "todowrite_3", name: "todowrite" }),
      R(1150, "bash_1"),
      R(1160, "todowrite_3", "- [x] step one\n- [ ] step two", { name: "todowrite" }),
      F(1200),
    ];
    const st = state({
      summaries: [summary("s1", ["bash_1@1150"], "S1")],
      chains: [
        chain("b2", 1000, 1200, {
          droppedToolCallIds: ["bash_1", "todowrite_3"],
          droppedOccurrenceKeys: ["bash_1@1150"],
          protectedToolCallIds: ["todowrite_3"],
          toolRefs: ["t1"],
        }),
      ],
    });
    const r = pruneMessages(msgs, st, { settings: settings({ protectedTools: ["todowrite"] }) });
    const text = textOf(r.messages[1]);
    expect(text).toBe(
      '<compressed-chain id="b2" tools="t1">\nS1\n\n<protected-output tool="todowrite">\n- [x] step one\n- [ ] step two\n</protected-output>\n</compressed-chain>',
    );
    expect(r.messages).toHaveLength(3);
  });

  it("uses the stored range summary and expands {bN} placeholders once (never self, unknown literal)", () => {
    const msgs = [U(1000), A(1100, "a_1"), R(1150, "a_1"), F(1200), U(2000), A(2100, "a_2"), R(2150, "a_2"), F(2200)];
    const st = state({
      chains: [
        chain("b1", 1000, 1200, { rangeSummaryText: "first {b2}" }),
        chain("b2", 2000, 2200, { rangeSummaryText: "see {b1}, {b2} and {b9}" }),
      ],
    });
    const r = pruneMessages(msgs, st, opts);
    const [s1, s2] = synthetics(r.messages).map(textOf);
    expect(s1).toBe('<compressed-chain id="b1" tools="">\nfirst see {b1}, {b2} and {b9}\n</compressed-chain>');
    expect(s2).toBe('<compressed-chain id="b2" tools="">\nsee first {b2}, {b2} and {b9}\n</compressed-chain>');
  });

  it("keeps thinking when stripFinalAssistantThinking is off, and does nothing when chain compression is off", () => {
    const msgs = [U(1000), A(1100, "a_1"), R(1150, "a_1"), F(1200, "done", "deep thought")];
    const st = state({ chains: [chain("b1", 1000, 1200, { droppedToolCallIds: ["a_1"] })] });
    const keep = pruneMessages(msgs, st, {
      settings: settings({ chainCompression: { stripFinalAssistantThinking: false } }),
    });
    expect(keep.messages[2]).toBe(msgs[3]);
    const off = pruneMessages(msgs, st, { settings: settings({ chainCompression: { enabled: false } }) });
    expect(off.messages).toBe(msgs);
  });
});
