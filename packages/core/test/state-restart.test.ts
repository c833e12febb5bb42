import { describe, expect, it } from "vitest";
import {
  applyDelta,
  createState,
  recordsForId,
  resolveKey,
  STATE_DELTA_FORMAT,
  type StateDelta,
  type ToolCallRecord,
} from "../src/index.ts";

const rec = (
  key: string,
  toolCallId: string,
  resultTimestamp: number,
  shortRef: string,
  text: string,
): ToolCallRecord => ({
  key,
  toolCallId,
  toolName: "bash",
  args: { command: "ls" },
  resultText: text,
  isError: false,
  turnIndex: 1,
  timestamp: resultTimestamp - 50,
  resultTimestamp,
  shortRef,
});

describe("state rebuilt from persisted entries (CAP-IDX-10)", () => {
  it("AS-60: after a restart two summarized occurrences resolve to their own records and an alias persisted before its original's summary inherits the original's tN", () => {
    // A full snapshot, as a restarted client pulls with since=0: the alias arrives ahead of the record it points at.
    const delta: StateDelta = {
      format: STATE_DELTA_FORMAT,
      fromVersion: 0,
      toVersion: 7,
      aliases: [{ key: "bash_23@9150", originalKey: "bash_23@1150" }],
      records: [
        rec("bash_23@1150", "bash_23", 1150, "t1", "FIRST"),
        rec("bash_23@2150", "bash_23", 2150, "t2", "SECOND"),
      ],
      summaries: [],
      chains: [],
    };
    const r = applyDelta(createState(), delta);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.state;
    expect(s.records.get(resolveKey(s, "t1")!)!.resultText).toBe("FIRST");
    expect(s.records.get(resolveKey(s, "t2")!)!.resultText).toBe("SECOND");
    expect(s.keyToRef.get("bash_23@9150")).toBe("t1");
    expect(s.nextRef).toBe(3);
    const hits = recordsForId(s, "bash_23");
    expect(hits.map((h) => [h.label, h.record.resultText])).toEqual([
      ["bash_23@1150", "FIRST"],
      ["bash_23@2150", "SECOND"],
      ["bash_23@9150", "FIRST"],
    ]);
  });

  it("refuses a delta that leaves a version gap, and treats an old delta as a no-op", () => {
    const base = applyDelta(createState(), {
      format: STATE_DELTA_FORMAT,
      fromVersion: 0,
      toVersion: 3,
      records: [],
      summaries: [],
      aliases: [],
      chains: [],
    });
    expect(base.ok).toBe(true);
    if (!base.ok) return;
    expect(
      applyDelta(base.state, {
        format: STATE_DELTA_FORMAT,
        fromVersion: 5,
        toVersion: 6,
        records: [],
        summaries: [],
        aliases: [],
        chains: [],
      }),
    ).toMatchObject({ ok: false, reason: "version-gap" });
    const old = applyDelta(base.state, {
      format: STATE_DELTA_FORMAT,
      fromVersion: 1,
      toVersion: 2,
      records: [],
      summaries: [],
      aliases: [],
      chains: [],
    });
    expect(old).toMatchObject({ ok: true, changed: false });
    expect(applyDelta(base.state, { format: "nope" } as unknown as StateDelta)).toMatchObject({
      ok: false,
      reason: "bad-format",
    });
  });
});
