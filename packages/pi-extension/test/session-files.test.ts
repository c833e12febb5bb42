/**
 * Condense's files on the user's disk: the crash spool lives in Condense's directory, never as `*.jsonl`
 * in pi's session directory, and an old spool there is moved and resent; and which Condense session a
 * forked pi session file continues.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CaptureSpool, createCondenseClient, type FetchLike } from "@condense/client";
import type { CapturedBatch } from "@condense/core";
import { LEGACY_SPOOL_SUFFIX, migrateLegacySpools, spoolDir, spoolPath } from "../src/spool-location.ts";
import { resolveSessionLink, rootAncestorId, SESSION_LINK_ENTRY } from "../src/session-lineage.ts";

const batch = (id: string, ts: number): CapturedBatch => ({
  turnIndex: 0,
  timestamp: ts,
  assistantText: "",
  toolCalls: [
    {
      toolCallId: id,
      toolName: "bash",
      args: { command: "ls" },
      resultText: "x".repeat(50),
      isError: false,
      resultTimestamp: ts,
    },
  ],
});

describe("crash spool location", () => {
  it("is under Condense's directory (the agent dir's condense/spool, or CONDENSE_DATA_DIR/spool), not a .jsonl", () => {
    expect(spoolDir({ PI_CODING_AGENT_DIR: "/a/agent" })).toBe("/a/agent/condense/spool");
    expect(spoolDir({ PI_CODING_AGENT_DIR: "/a/agent", CONDENSE_DATA_DIR: "/data/c" })).toBe("/data/c/spool");
    const p = spoolPath("0199-abc", { PI_CODING_AGENT_DIR: "/a/agent" });
    expect(p).toBe("/a/agent/condense/spool/0199-abc.spool");
    expect(p.endsWith(".jsonl")).toBe(false);
  });

  it("moves old spools out of pi's session directory and the client resends what they held", async () => {
    const root = mkdtempSync(join(tmpdir(), "condense-spool-"));
    const env = { PI_CODING_AGENT_DIR: join(root, "agent") };
    const sessions = join(root, "sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "2026_s1.jsonl"), '{"type":"session"}\n');
    const legacy = new CaptureSpool(join(sessions, `s1${LEGACY_SPOOL_SUFFIX}`));
    legacy.append({ captureId: "c-acked", batches: [batch("a", 10)] });
    legacy.ack("c-acked");
    legacy.append({ captureId: "c-pending", batches: [batch("b", 20)] });
    writeFileSync(join(sessions, `s2${LEGACY_SPOOL_SUFFIX}`), ""); // an empty one is removed too

    expect(migrateLegacySpools(sessions, env).sort()).toEqual(["s1", "s2"]);
    // pi's directory holds only its session again.
    expect(readdirSync(sessions)).toEqual(["2026_s1.jsonl"]);
    const moved = new CaptureSpool(spoolPath("s1", env));
    expect(moved.readPending().map((p) => p.captureId)).toEqual(["c-pending"]);
    expect(migrateLegacySpools(sessions, env)).toEqual([]);

    // A client over the moved spool sends the pending capture on start, once.
    const posted: string[] = [];
    const fetch: FetchLike = async (input, init) => {
      const url = new URL(String(input));
      if (url.pathname.endsWith("/captures")) {
        const body = JSON.parse(String(init?.body));
        posted.push(body.captureId);
        return new Response(JSON.stringify({ captureId: body.captureId, accepted: 1, duplicates: 0, maxSeq: 1 }), {
          status: 200,
        });
      }
      return new Response(JSON.stringify({ error: { code: "not_found", message: "no session" } }), { status: 404 });
    };
    const client = createCondenseClient({
      url: "http://api.invalid",
      sessionId: "s1",
      fetch,
      spoolPath: moved.path,
      sse: false,
      backoff: { initialMs: 5, maxMs: 20, factor: 2 },
    });
    expect(await client.drain(5_000)).toBe(true);
    await client.close();
    expect(posted).toEqual(["c-pending"]);
    expect(new CaptureSpool(moved.path).readPending()).toEqual([]);
  });

  it("leaves a directory without legacy spools, or a missing one, alone", () => {
    expect(migrateLegacySpools(undefined)).toEqual([]);
    expect(migrateLegacySpools(join(tmpdir(), "condense-none-such-dir"))).toEqual([]);
    expect(existsSync(join(tmpdir(), "condense-none-such-dir"))).toBe(false);
  });
});

describe("which Condense session a pi session file continues", () => {
  type Entry = { type: string; customType?: string; data?: unknown };
  const ctxOf = (id: string, parentSession: string | undefined, branch: Entry[] = []) =>
    ({
      sessionManager: { getSessionId: () => id, getHeader: () => ({ parentSession }), getBranch: () => branch },
    }) as unknown as Parameters<typeof resolveSessionLink>[0];
  const headers: Record<string, { id: string; parentSession?: string }> = {
    "/s/root.jsonl": { id: "root" },
    "/s/child.jsonl": { id: "child", parentSession: "/s/root.jsonl" },
  };
  const read = (p: string) => headers[p] ?? null;

  it("a file of its own keeps its own id", () => {
    expect(resolveSessionLink(ctxOf("solo", undefined), read)).toEqual({ sessionId: "solo", unrecorded: false });
  });
  it("a fork follows parentSession to the oldest readable ancestor, and asks to record the link", () => {
    expect(rootAncestorId("/s/child.jsonl", read)).toBe("root");
    expect(resolveSessionLink(ctxOf("grandchild", "/s/child.jsonl"), read)).toEqual({
      sessionId: "root",
      unrecorded: true,
    });
  });
  it("a recorded link on the path wins (it survives the parent file being deleted)", () => {
    const branch = [{ type: "custom", customType: SESSION_LINK_ENTRY, data: { sessionId: "root" } }];
    expect(resolveSessionLink(ctxOf("grandchild", "/s/deleted.jsonl", branch), read)).toEqual({
      sessionId: "root",
      unrecorded: false,
    });
  });
  it("a parent that cannot be read leaves the file on its own id; a cycle ends", () => {
    expect(resolveSessionLink(ctxOf("orphan", "/s/deleted.jsonl"), read)).toEqual({
      sessionId: "orphan",
      unrecorded: false,
    });
    const loop = (p: string) => ({ id: p, parentSession: p === "/a" ? "/b" : "/a" });
    expect(rootAncestorId("/a", loop)).toBe("/b");
  });
});
