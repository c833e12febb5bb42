import { describe, expect, it } from "vitest";
import {
  diagCounts,
  emptyLedger,
  markReported,
  recordDiagnostics,
  unseenDiagnostics,
  type Diagnostic,
} from "../../src/diagnostics.ts";
import { graceSet, isChainDeferred } from "../../src/recovery-grace.ts";
import { arrayChars, messageChars } from "../../src/render/message-size.ts";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { A, F, R, S, U } from "@condense/test-support/messages";
import { chain, rec, settings, state } from "./fixtures.ts";

const opts = { settings: settings() };

describe("pruneMessages", () => {
  it("reports before/after sizes equal to JSON.stringify(array).length exactly", () => {
    const msgs = [
      U(1000, 'héllo \u2502 "quoted"'),
      A(1100, "bash_1", "bash_2"),
      R(1150, "bash_1", "x".repeat(5000)),
      R(1160, "bash_2", "y\n".repeat(100)),
      F(1200, "ok", "think"),
      S(1300, ["bash_1@1150"]),
      R(1400, "orphan"),
    ];
    const st = state({
      records: [rec("bash_2", 1160, { shortRef: "t2" })],
      chains: [chain("b1", 1000, 1200, { droppedToolCallIds: ["bash_1", "bash_2"] })],
    });
    const r = pruneMessages(msgs, st, opts);
    expect(r.pruned).toBe(true);
    expect(r.beforeChars).toBe(JSON.stringify(msgs).length);
    expect(r.afterChars).toBe(JSON.stringify(r.messages).length);
    expect(r.afterChars).toBeLessThan(r.beforeChars);
    for (const arr of [[], [null], [undefined, 1, "s"], msgs]) expect(arrayChars(arr)).toBe(JSON.stringify(arr).length);
    expect(messageChars(msgs[2])).toBe(JSON.stringify(msgs[2]).length);
  });

  it("never mutates its input", () => {
    const msgs = [
      U(1000),
      A(1100, { id: "e_1", args: { p: "z".repeat(600) } }),
      R(1150, "e_1", "bad", { isError: true }),
      F(1200, "ok", "t"),
      F(1300),
      F(1400),
      R(1500, "stray"),
    ];
    const copy = structuredClone(msgs);
    const st = state({ records: [rec("e_1", 1150, { shortRef: "t1" })], chains: [chain("b1", 1000, 1200)] });
    pruneMessages(msgs, st, opts);
    expect(msgs).toEqual(copy);
  });

  it("passes malformed messages through untouched (but an unopened tool result) and reports each once by content", () => {
    const idless = { role: "toolResult", content: [] };
    const bad = [null, 42, "text", { content: [] }, { role: "assistant", content: "not blocks" }, idless, [1, 2]];
    const msgs = [U(1), ...bad, U(2)];
    const r = pruneMessages(msgs as never, state({ records: [rec("x", 1)] }), opts);
    // Pairing wins: a tool result no call opened is removed, malformed or not.
    expect(r.messages).toEqual(msgs.filter((m) => m !== idless));
    expect(r.messages.every((m, i) => m === msgs.filter((x) => x !== idless)[i])).toBe(true);
    expect(r.stats.swept).toBe(1);
    expect(r.stats.malformed).toBe(bad.length);
    const kinds = new Set(r.diagnostics.map((d) => d.kind));
    expect([...kinds]).toEqual(["malformed-message", "orphan-sweep"]);
    // Same key wherever the entry sits.
    const malformedKeys = (ds: readonly Diagnostic[]) =>
      ds.filter((d) => d.kind === "malformed-message").map((d) => d.dedupKey);
    const shifted = pruneMessages([U(0), U(1), ...bad] as never, state(), opts);
    expect(malformedKeys(shifted.diagnostics)).toEqual(malformedKeys(r.diagnostics));
    expect(malformedKeys(r.diagnostics)).toHaveLength(bad.length);
  });

  it("ignores a disabled session and non-array input", () => {
    const msgs = [A(1, "a"), R(2, "b")];
    expect(pruneMessages(msgs, state(), { settings: settings({ enabled: false }) }).messages).toBe(msgs);
    expect(pruneMessages("junk" as never, state(), opts)).toMatchObject({ messages: "junk", pruned: false });
  });
});

describe("DiagnosticsLedger", () => {
  const d = (kind: Diagnostic["kind"], key: string): Diagnostic => ({ kind, dedupKey: key, detail: "" });
  it("reports each (kind, key) at most once, marks only after the write, and counts per kind", () => {
    let ledger = emptyLedger();
    const batch = [
      d("unresolved-range", "b1"),
      d("unresolved-range", "b1"),
      d("orphan-sweep", "h"),
      d("orphan-sweep", "h2"),
      d("backfill-empty", "b1"),
    ];
    expect(unseenDiagnostics(ledger, batch)).toHaveLength(4);
    // a failed write: nothing marked, reported again next time
    expect(unseenDiagnostics(ledger, batch)).toHaveLength(4);
    ledger = markReported(ledger, batch);
    expect(diagCounts(ledger)).toEqual({ u: 1, m: 0, o: 2, b: 1 });
    const again = recordDiagnostics(ledger, batch);
    expect(again.fresh).toEqual([]);
    expect(again.ledger).toBe(ledger);
  });
});

describe("recovery grace helpers", () => {
  it("graceSet holds occurrence keys of recent query results; isChainDeferred matches keys and bare entries", () => {
    const q = { name: "context_tree_query" };
    const msgs = [U(1), R(10, "q_1", "r", q), U(2), R(undefined, "q_2", "r", q), U(3), U(4), U(5)];
    expect(graceSet(msgs, 3)).toEqual(new Set(["q_2"]));
    expect(graceSet(msgs, 4)).toEqual(new Set(["q_1@10", "q_2"]));
    expect(graceSet(msgs, 0)).toEqual(new Set());
    const grace = new Set(["q_1@10", "q_2"]);
    expect(isChainDeferred({ middleOccurrenceKeys: ["q_1@10"], middleToolCallIds: ["q_1"] }, grace)).toBe(true);
    expect(isChainDeferred({ middleOccurrenceKeys: ["q_1@11"], middleToolCallIds: ["q_1"] }, grace)).toBe(false);
    expect(isChainDeferred({ middleOccurrenceKeys: ["q_2@99"], middleToolCallIds: ["q_2"] }, grace)).toBe(true);
    expect(isChainDeferred({ middleOccurrenceKeys: [], middleToolCallIds: ["q_2"] }, grace)).toBe(true);
  });
});
