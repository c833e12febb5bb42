import { describe, expect, it } from "vitest";
import { createRenderMemo, pruneMessages } from "../../src/render/prune-messages.ts";
import { hasLegacyBareRecord } from "../../src/state.ts";
import { storedStubText, summaryStubText } from "../../src/texts.ts";
import { A, F, R, U } from "@condense/test-support/messages";
import { rec, settings, state, textOf } from "./fixtures.ts";

const opts = { settings: settings() };

describe("phase 1: stub-replace", () => {
  it("AS-01 replaces an indexed occurrence by its summary stub with ref t1", () => {
    const st = state({ records: [rec("bash_1", 150, { shortRef: "t1" })] });
    const msgs = [A(100, "bash_1"), R(150, "bash_1", "OUT")];
    const r = pruneMessages(msgs, st, opts);
    expect(r.pruned).toBe(true);
    expect(r.messages[0]).toBe(msgs[0]);
    expect(r.messages[1]).toEqual({
      role: "toolResult",
      toolCallId: "bash_1",
      toolName: "bash",
      timestamp: 150,
      isError: false,
      content: [{ type: "text", text: summaryStubText("t1") }],
    });
    expect(textOf(r.messages[1])).toContain("`t1`");
    expect(textOf(r.messages[1])).toContain("context_tree_query");
    expect(r.stats.stubbed).toBe(1);
  });

  it("AS-02 a clean render returns the identical array with pruned:false and 0/0", () => {
    const msgs = [U(1), A(100, "bash_1"), R(150, "bash_1"), F(200)];
    const r = pruneMessages(msgs, state(), opts);
    expect(r.messages).toBe(msgs);
    expect(r).toMatchObject({ pruned: false, beforeChars: 0, afterChars: 0 });
    expect(r.diagnostics).toHaveLength(0);
  });

  it("AS-03 a reused id is a different occurrence: the old one is stubbed, the live one stays", () => {
    const st = state({ records: [rec("bash_23", 1150, { shortRef: "t1" })] });
    const msgs = [A(1100, "bash_23"), R(1150, "bash_23", "OLD"), A(3100, "bash_23"), R(3150, "bash_23", "LIVE")];
    const r = pruneMessages(msgs, st, opts);
    expect(textOf(r.messages[1])).toBe(summaryStubText("t1"));
    expect(r.messages[3]).toBe(msgs[3]);
  });

  it("AS-04 an unindexed occurrence of an indexed id fails closed (same reference)", () => {
    const st = state({ records: [rec("bash_23", 1150, { shortRef: "t1" })] });
    const msgs = [A(9100, "bash_23"), R(9150, "bash_23")];
    const r = pruneMessages(msgs, st, opts);
    expect(r.messages).toBe(msgs);
    expect(r.pruned).toBe(false);
  });

  it("AS-05 a legacy record with occurrence-keyed siblings never matches a live result", () => {
    const st = state({
      records: [rec("bash_23", undefined, { shortRef: "t1" }), rec("bash_23", 2150, { shortRef: "t2" })],
    });
    const msgs = [A(9100, "bash_23"), R(9150, "bash_23", "LIVE")];
    expect(hasLegacyBareRecord(st, "bash_23")).toBe(false);
    expect(pruneMessages(msgs, st, opts).messages).toBe(msgs);
  });

  it("AS-06 a lone legacy record stubs every result of its id (accepted exposure), with the raw id as ref", () => {
    const st = state({ records: [rec("bash_7", undefined)] });
    const msgs = [
      A(100, "bash_7"),
      R(150, "bash_7"),
      A(9100, "bash_7"),
      R(9150, "bash_7", "LIVE"),
      A(9200, "bash_7"),
      R(undefined, "bash_7"),
    ];
    const r = pruneMessages(msgs, st, opts);
    for (const i of [1, 3, 5]) expect(textOf(r.messages[i])).toBe(summaryStubText("bash_7"));
    expect((r.messages[3] as { timestamp?: number }).timestamp).toBe(9150);
  });

  it("a dedup alias is stubbed with its original's ref", () => {
    const st = state({
      records: [rec("read_1", 1150, { shortRef: "t1" })],
      aliases: [{ key: "read_9@9150", originalKey: "read_1@1150" }],
    });
    const r = pruneMessages([A(9100, "read_9"), R(9150, "read_9")], st, opts);
    expect(textOf(r.messages[1])).toBe(summaryStubText("t1"));
  });

  it("a stored (oversized) record gets the stored stub: bytes, tool, head preview, recovery by ref or raw id", () => {
    const st = state({
      records: [rec("bash_5", 550, { resultText: "", stored: { bytes: 70_000, preview: "line 1\nline 2" } })],
    });
    const r = pruneMessages([A(500, "bash_5"), R(550, "bash_5", "x".repeat(70_000))], st, opts);
    const text = textOf(r.messages[1]);
    expect(text).toBe(storedStubText({ toolName: "bash", bytes: 70_000, preview: "line 1\nline 2", ref: "bash_5" }));
    expect(text).toContain("70000 bytes");
    expect(text).toContain("line 1\nline 2");
    expect(text).toContain("context_tree_query with ref `bash_5`");
  });

  it("AS-34 a record now matching protectedPaths is left verbatim (render re-check)", () => {
    const st = state({
      records: [
        rec("read_3", 350, { toolName: "read", args: { path: "/repo/.pi/skills/x/SKILL.md" }, shortRef: "t1" }),
      ],
    });
    const msgs = [
      A(300, { id: "read_3", name: "read", args: { path: "/repo/.pi/skills/x/SKILL.md" } }),
      R(350, "read_3", "skill body", { name: "read" }),
    ];
    expect(pruneMessages(msgs, st, opts).messages).toBe(msgs);
    // The same record under settings without that pattern is stubbed.
    const r = pruneMessages(msgs, st, { settings: settings({ protectedPaths: [] }) });
    expect(textOf(r.messages[1])).toBe(summaryStubText("t1"));
  });

  describe("AS-42 recovery grace", () => {
    const q = "context_tree_query";
    const build = (age: number) => {
      const msgs = [
        U(1),
        A(100, { id: "q_1", name: q }),
        R(150, "q_1", "recovered", { name: q }),
        A(160, "bash_2"),
        R(170, "bash_2"),
      ];
      for (let i = 0; i < age; i++) msgs.push(U(1000 + i));
      return msgs;
    };
    const st = state({
      records: [rec("q_1", 150, { toolName: q, shortRef: "t5" }), rec("bash_2", 170, { shortRef: "t6" })],
    });

    it("AS-42 a query result stays verbatim for ages 0..K and is stubbed at K+1; other tools are unaffected", () => {
      for (let age = 0; age <= 4; age++) {
        const r = pruneMessages(build(age), st, opts);
        expect(textOf(r.messages[2])).toBe(age <= 3 ? "recovered" : summaryStubText("t5"));
        expect(textOf(r.messages[4])).toBe(summaryStubText("t6"));
      }
    });

    it("AS-42 K=0 stubs at once", () => {
      const r = pruneMessages(build(0), st, { settings: settings({ recoveryGraceTurns: 0 }) });
      expect(textOf(r.messages[2])).toBe(summaryStubText("t5"));
    });

    it("AS-42 a protected query tool stays verbatim forever", () => {
      const r = pruneMessages(build(9), st, { settings: settings({ protectedTools: [q] }) });
      expect(textOf(r.messages[2])).toBe("recovered");
    });

    it("AS-42 grace on id@ts1 does not shield id@ts2", () => {
      const st2 = state({
        records: [rec("q_1", 150, { toolName: q, shortRef: "t5" }), rec("q_1", 950, { toolName: q, shortRef: "t9" })],
      });
      const msgs = [
        U(1),
        A(100, { id: "q_1", name: q }),
        R(150, "q_1", "old", { name: q }),
        U(2),
        U(3),
        U(4),
        U(5),
        A(900, { id: "q_1", name: q }),
        R(950, "q_1", "new", { name: q }),
      ];
      const r = pruneMessages(msgs, st2, opts);
      expect(textOf(r.messages[2])).toBe(summaryStubText("t5"));
      expect(textOf(r.messages[8])).toBe("new");
    });

    it("synthetic chain messages are not user turns for grace", () => {
      const msgs = [
        ...build(3),
        {
          role: "user",
          content: [{ type: "text", text: '<compressed-chain id="b1" tools="">\n\n</compressed-chain>' }],
          timestamp: 5,
        },
      ];
      expect(textOf(pruneMessages(msgs, st, opts).messages[2])).toBe("recovered");
    });
  });

  it("stubs are the same object on every render sharing a state's memo, and byte-identical across equal states", () => {
    const msgs = [A(100, "bash_1"), R(150, "bash_1")];
    const st = state({ records: [rec("bash_1", 150, { shortRef: "t1" })] });
    const memo = createRenderMemo(st);
    const a = pruneMessages(msgs, st, { ...opts, memo });
    const b = pruneMessages(structuredClone(msgs), st, { ...opts, memo });
    expect(b.messages[1]).toBe(a.messages[1]);
    // a memo made for another state is ignored, never trusted
    expect(pruneMessages(msgs, state(), { ...opts, memo }).messages).toBe(msgs);
    const c = pruneMessages(msgs, state({ records: [rec("bash_1", 150, { shortRef: "t1" })] }), opts);
    expect(JSON.stringify(c.messages)).toBe(JSON.stringify(a.messages));
    // Rendering the rendered output changes nothing, down to the reference.
    expect(pruneMessages(a.messages, st, opts).messages).toBe(a.messages);
  });
});
