import { describe, expect, it } from "vitest";
import { emptyLedger, recordDiagnostics, shortHash } from "../../src/diagnostics.ts";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { A, C, R, U } from "@condense/test-support/messages";
import { settings, state } from "./fixtures.ts";

const opts = { settings: settings() };
const run = (msgs: unknown[]) => pruneMessages(msgs as never, state(), opts);

describe("phase 4: orphan sweep", () => {
  it("AS-39 sweeps a result outside its turn and reports it once across renders", () => {
    const msgs = [U(1), A(10, "a"), R(11, "a"), A(20, "b"), R(21, "b"), R(22, "a")];
    let ledger = emptyLedger();
    for (let i = 0; i < 3; i++) {
      const r = run(msgs);
      expect(r.messages).toEqual(msgs.slice(0, 5));
      expect(r.stats.swept).toBe(1);
      expect(r.diagnostics).toEqual([
        { kind: "orphan-sweep", dedupKey: shortHash("a"), detail: "swept 1 orphan toolResult(s): a" },
      ]);
      const step = recordDiagnostics(ledger, r.diagnostics);
      expect(step.fresh).toHaveLength(i === 0 ? 1 : 0);
      ledger = step.ledger;
    }
    expect(ledger.counts["orphan-sweep"]).toBe(1);
  });

  it("AS-40 any non-assistant, non-toolResult message is a barrier (2.9.1)", () => {
    expect(run([A(1, "X"), C(2), R(3, "X")]).messages).toEqual([A(1, "X"), C(2)]);
    expect(run([A(1, "X", "Y"), R(2, "X"), C(3), R(4, "Y")]).messages).toEqual([A(1, "X", "Y"), R(2, "X"), C(3)]);
    const clean = [A(1, "X"), R(2, "X"), C(3)];
    expect(run(clean).messages).toBe(clean);
    for (const role of ["user", "branchSummary", "compactionSummary", "bashExecution", "someFutureRole"]) {
      const foreign = { role, content: [{ type: "text", text: "x" }], timestamp: 2 };
      expect(run([A(1, "X"), foreign, R(3, "X")]).messages).toEqual([A(1, "X"), foreign]);
    }
  });

  it("sweeps a duplicate result for one call and a result whose id a previous turn used", () => {
    expect(run([A(1, "X"), R(2, "X"), R(3, "X")]).messages).toEqual([A(1, "X"), R(2, "X")]);
    expect(run([A(1, "X"), R(2, "X"), A(3, "Y"), R(4, "X")]).messages).toEqual([A(1, "X"), R(2, "X"), A(3, "Y")]);
  });

  it("lists at most five ids in the detail", () => {
    const ids = ["a", "b", "c", "d", "e", "f", "g"];
    const r = run([U(0), ...ids.map((id, i) => R(i + 1, id))]);
    expect(r.messages).toHaveLength(1);
    expect(r.diagnostics[0]!.detail).toBe("swept 7 orphan toolResult(s): a, b, c, d, e ... +2 more");
    expect(r.diagnostics[0]!.dedupKey).toBe(shortHash(ids.join(",")));
  });
});
