/**
 * Format detection and readAnySession over synthetic inputs and over every real session file in
 * ../shared/data/sessions (skipped with a notice when absent).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { isAssistant, isToolResult, toolCallsOf } from "../../src/messages.ts";
import { detectSessionFormat, readAnySession } from "../../src/session-formats/detect.ts";
import { realSessionFiles } from "@condense/test-support/sessions";

const j = (o: unknown) => JSON.stringify(o);

describe("detectSessionFormat", () => {
  it("tells the formats apart by content, not by name", () => {
    expect(detectSessionFormat(j({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" }), "x.jsonl")).toBe(
      "pi",
    );
    expect(
      detectSessionFormat(j({ type: "message", timestamp: "t", message: { role: "user", content: [] } }), "x.txt"),
    ).toBe("pi");
    expect(
      detectSessionFormat(
        j({ type: "user", uuid: "u", parentUuid: null, sessionId: "s", message: { role: "user", content: "hi" } }),
        "session.jsonl",
      ),
    ).toBe("claude-code");
    expect(detectSessionFormat(j({ type: "session_meta", payload: {} }), "a.jsonl")).toBe("codex-cli");
    expect(detectSessionFormat(j({ id: "r", timestamp: "t", instructions: "" }), "a.jsonl")).toBe("codex-cli");
    expect(
      detectSessionFormat(JSON.stringify({ environment: "x", trajectory: [], history: [] }, null, 2), "a.json"),
    ).toBe("swe-agent");
    expect(detectSessionFormat("{}", "run.traj")).toBe("swe-agent");
    expect(detectSessionFormat("hello world\nnot a session", "notes.md")).toBe("unknown");
    expect(detectSessionFormat(j({ foo: 1 }), "data.jsonl")).toBe("unknown");
    expect(detectSessionFormat("", "")).toBe("unknown");
  });

  it("readAnySession: unknown input gives no messages and a warning naming the formats", () => {
    const r = readAnySession("just text", "notes.txt");
    expect(r.format).toBe("unknown");
    expect(r.messages).toEqual([]);
    expect(r.warnings[0]).toMatch(/pi, claude-code, codex-cli, swe-agent/);
  });

  it("readAnySession: a pi file cut mid-line keeps the complete lines and reports the cut one", () => {
    const lines = [
      j({ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00Z", cwd: "/" }),
      j({
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2025-01-01T00:00:01Z",
        message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
      }),
      j({
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "2025-01-01T00:00:02Z",
        message: { role: "assistant", content: [{ type: "text", text: "hello there" }], timestamp: 2 },
      }),
    ];
    const text = lines.join("\n").slice(0, -20);
    const r = readAnySession(text, "s.jsonl");
    expect(r.format).toBe("pi");
    expect(r.messages.map((m) => m.role)).toEqual(["user"]);
    expect(r.skipped.map((s) => s.line)).toEqual([3]);
  });
});

const files = [...realSessionFiles("pi"), ...realSessionFiles("other")];
const expected = (name: string) =>
  name.startsWith("claude-code_")
    ? "claude-code"
    : name.startsWith("codex-cli_")
      ? "codex-cli"
      : name.startsWith("swe-agent_")
        ? "swe-agent"
        : "pi";

describe.skipIf(files.length === 0)("real sessions: every file is detected and read", () => {
  for (const file of files) {
    const name = basename(file);
    it(name, () => {
      const text = readFileSync(file, "utf8");
      // Detection must not rely on the name: a neutral name gives the same answer (except .traj, which is a name rule).
      expect(detectSessionFormat(text, name)).toBe(expected(name));
      expect(detectSessionFormat(text, "session.json")).toBe(expected(name));
      const r = readAnySession(text, name, { compaction: "ignore" });
      expect(r.format).toBe(expected(name));
      const calls = new Set<string>();
      let results = 0;
      let paired = 0;
      for (const m of r.messages) {
        if (isAssistant(m)) for (const c of toolCallsOf(m)) calls.add(c.id);
        if (isToolResult(m)) {
          results++;
          if (calls.has(m.toolCallId)) paired++;
        }
      }
      expect(r.messages.length).toBeGreaterThan(10);
      expect(calls.size).toBeGreaterThan(5);
      // Real files lose the odd call to a broken line; nearly every result must still find its call.
      expect(paired).toBeGreaterThanOrEqual(results - 3);
      expect(r.skipped.length).toBeLessThanOrEqual(2);
    });
  }
});

describe.skipIf(files.length === 0)("real sessions: counts match SOURCES.md", () => {
  const byName = new Map(files.map((f) => [basename(f), f]));
  const counts = (name: string) => {
    const f = byName.get(name);
    if (!f) return undefined;
    const r = readAnySession(readFileSync(f, "utf8"), name, { compaction: "ignore" });
    let calls = 0;
    let results = 0;
    for (const m of r.messages) {
      if (isAssistant(m)) calls += toolCallsOf(m).length;
      if (isToolResult(m)) results++;
    }
    return { calls, results };
  };
  it.each([
    ["claude-code_fundwise.jsonl", 83, 83],
    ["claude-code_posthog-impact-dashboard.jsonl", 133, 133],
    ["claude-code_harborgate-task119.jsonl", 131, 131],
    ["codex-cli_agno.jsonl", 38, 38],
    ["swe-agent_marshmallow-1867_function-calling.traj", 13, 13],
  ])("%s: %i tool calls, %i results", (name, calls, results) => {
    const c = counts(name);
    if (!c) return;
    expect(c).toEqual({ calls, results });
  });
});
