import { describe, expect, it } from "vitest";
import { readPiSession, splitObjects } from "../src/session-reader.ts";

const j = (o: unknown) => JSON.stringify(o);
const msg = (role: string, ts: number, extra: Record<string, unknown> = {}) => ({
  role,
  timestamp: ts,
  content: [{ type: "text", text: `${role} ${ts}` }],
  ...extra,
});

describe("pi session reader", () => {
  it("v1: file order, two objects on one physical line, an invalid line reported and skipped", () => {
    const text = [
      j({ type: "session", id: "s", timestamp: "2025-01-01T00:00:00Z", cwd: "/x" }),
      j({ type: "message", timestamp: "2025-01-01T00:00:01Z", message: msg("user", 1) }) +
        j({ type: "thinking_level_change", thinkingLevel: "off" }),
      '{"type":"message","message":{"role":"user","content":"bad \\q escape"}}',
      j({
        type: "message",
        timestamp: "2025-01-01T00:00:02Z",
        message: {
          role: "assistant",
          content: [{ type: "toolCall", id: "bash_1", name: "bash", arguments: {} }],
          timestamp: 2,
        },
      }),
      "",
      j({ type: "custom", customType: "state", data: {} }),
      j({
        type: "custom_message",
        customType: "note",
        content: "hello",
        display: false,
        timestamp: "2025-01-01T00:00:03.000Z",
      }),
    ].join("\n");
    const r = readPiSession(text);
    expect(r.version).toBe(1);
    expect(r.header).toMatchObject({ id: "s" });
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "custom"]);
    expect(r.messages[2]).toEqual({
      role: "custom",
      customType: "note",
      content: "hello",
      display: false,
      details: undefined,
      timestamp: Date.parse("2025-01-01T00:00:03.000Z"),
    });
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0]!.line).toBe(3);
  });

  it("v3: follows parentId from the last entry, bridges a lost line, stops at a missing parent", () => {
    const e = (id: string, parentId: string | null, m: unknown) =>
      j({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:00Z", message: m });
    const text = [
      j({ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00Z", cwd: "/x" }),
      e("a", null, msg("user", 1)),
      e("side", "a", msg("user", 99)), // another branch: not on the leaf's path
      e("b", "a", msg("assistant", 2)),
      '{"type":"message","id":"c","parentId":"b","timestamp":"x","message":{"role":"toolResult","content":"\\q"}}',
      e("d", "c", msg("user", 4)),
    ].join("\n");
    const r = readPiSession(text);
    expect(r.version).toBe(3);
    expect(r.messages.map((m) => m.timestamp)).toEqual([1, 2, 4]);
    expect(r.skipped.map((s) => s.line)).toEqual([5]);
    expect(r.skipped[0]!.reason).toContain("tree link kept");

    const midTree = [e("x", "gone", msg("user", 1)), e("y", "x", msg("assistant", 2))].join("\n");
    const m = readPiSession(midTree);
    expect(m.header).toBeNull();
    expect(m.version).toBe(3);
    expect(m.messages.map((x) => x.timestamp)).toEqual([1, 2]);
    expect(m.skipped.some((s) => s.reason.includes("mid-tree"))).toBe(true);
  });

  it("applies the latest compaction like pi (summary + kept + after) unless told to ignore it", () => {
    const e = (id: string, parentId: string | null, ts: number) =>
      j({
        type: "message",
        id,
        parentId,
        timestamp: "2025-01-01T00:00:00Z",
        message: msg(ts % 2 ? "user" : "assistant", ts),
      });
    const text = [
      j({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" }),
      e("a", null, 1),
      e("b", "a", 2),
      e("c", "b", 3),
      j({
        type: "compaction",
        id: "k",
        parentId: "c",
        timestamp: "2025-01-01T00:00:00Z",
        summary: "SUM",
        firstKeptEntryId: "b",
        tokensBefore: 10,
      }),
      e("d", "k", 5),
    ].join("\n");
    const applied = readPiSession(text);
    expect(applied.messages.map((m) => m.role)).toEqual(["compactionSummary", "assistant", "user", "user"]);
    expect(applied.messages[0]).toMatchObject({ summary: "SUM", tokensBefore: 10 });
    expect(readPiSession(text, { compaction: "ignore" }).messages.map((m) => m.timestamp)).toEqual([1, 2, 3, 5]);
  });

  it("never throws on junk", () => {
    for (const junk of [
      "",
      "\n\n",
      "{",
      "}{",
      "[1,2]",
      "null",
      '{"a":"}"} trailing',
      "\u0000\u0001",
      '{"type":"message","message":5}',
    ]) {
      expect(() => readPiSession(junk)).not.toThrow();
    }
    expect(readPiSession(undefined as unknown as string).messages).toEqual([]);
  });

  it("splits balanced objects with braces and escaped quotes inside strings", () => {
    const a = j({ s: 'a } " {', n: { x: 1 } });
    const b = j({ t: "\\" });
    expect(splitObjects(a + b).map((c) => JSON.parse(c.text))).toEqual([JSON.parse(a), JSON.parse(b)]);
  });
});
