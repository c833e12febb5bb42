/**
 * The local state cache: a resumed process renders with the last applied state before its first sync,
 * the first sync supersedes it whatever its version, and a bad or foreign file is ignored, never fatal.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { A, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import {
  applyDelta,
  createState,
  normalizeSettings,
  STATE_DELTA_FORMAT,
  type AgentMessage,
  type CondenseState,
  type StateDelta,
  type ToolCallRecord,
} from "@condense/core";
import { createCondenseClient, StateCache, type FetchLike } from "../src/index.ts";
import { stateSnapshot } from "@condense/core";
import { StateMirror } from "../src/state-mirror.ts";

const rec = (key: string, ts: number, ref: string): ToolCallRecord => ({
  key,
  toolCallId: key.split("@")[0]!,
  toolName: "bash",
  args: { command: "ls" },
  resultText: "R".repeat(50),
  isError: false,
  turnIndex: 0,
  timestamp: ts,
  resultTimestamp: ts,
  shortRef: ref,
});

function snapshot(version: number, n = 1): StateDelta {
  const records = Array.from({ length: n }, (_, i) => rec(`bash_${i + 1}@${101 + i}`, 101 + i, `t${i + 1}`));
  return {
    format: STATE_DELTA_FORMAT,
    fromVersion: 0,
    toVersion: version,
    records,
    summaries: [
      {
        id: "s1",
        coverage: [records[0]!.key],
        refs: [{ shortId: "t1", toolCallId: "bash_1", resultTimestamp: 101 }],
        text: "summary",
      } as never,
    ],
    aliases: [{ key: "bash_9@900", originalKey: records[0]!.key }],
    chains: [],
    settled: ["bash_8@800"],
  };
}

function stateOf(delta: StateDelta): CondenseState {
  const r = applyDelta(createState(), delta);
  if (!r.ok) throw new Error(r.message);
  return r.state;
}

const dir = () => mkdtempSync(join(tmpdir(), "condense-state-cache-"));
const nextTick = () => new Promise<void>((r) => setImmediate(r));

async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("StateCache file", () => {
  it("round-trips a state (records, summaries, aliases, settled keys, version)", async () => {
    const path = join(dir(), "state", "s.json");
    const cache = new StateCache(path, "local:/x", "s");
    const state = stateOf(snapshot(7, 3));
    cache.save(state);
    await cache.idle();
    expect(cache.lastWrite?.version).toBe(7);
    const back = await new StateCache(path, "local:/x", "s").load();
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(back.state.version).toBe(7);
    expect(stateSnapshot(back.state)).toEqual(stateSnapshot(state));
    expect(back.state.aliases.get("bash_9@900")).toBe("bash_1@101");
    expect(back.state.settled.has("bash_8@800")).toBe(true);
    expect(back.state.keyToRef.get("bash_3@103")).toBe("t3");
  });

  it("ignores a missing, truncated, foreign-format or malformed file with a reason", async () => {
    const d = dir();
    const path = join(d, "s.json");
    const cache = new StateCache(path, "local:/x", "s");
    expect(await cache.load()).toMatchObject({ ok: false, reason: "missing" });
    cache.save(stateOf(snapshot(3)));
    await cache.idle();
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
    expect(await cache.load()).toMatchObject({ ok: false, reason: "corrupt" });
    writeFileSync(path, JSON.stringify({ ...JSON.parse(text), format: "condense.state-cache/0" }));
    expect(await cache.load()).toMatchObject({ ok: false, reason: "other-format" });
    writeFileSync(path, JSON.stringify({ ...JSON.parse(text), snapshot: { format: "nope" } }));
    expect(await cache.load()).toMatchObject({ ok: false, reason: "corrupt" });
    writeFileSync(path, "null");
    expect(await cache.load()).toMatchObject({ ok: false, reason: "other-format" });
  });

  it("ignores a file cached for another service identity or session", async () => {
    const path = join(dir(), "s.json");
    const cache = new StateCache(path, "fleet:https://a#k1", "s");
    cache.save(stateOf(snapshot(3)));
    await cache.idle();
    expect((await new StateCache(path, "fleet:https://a#k1", "s").load()).ok).toBe(true);
    expect(await new StateCache(path, "fleet:https://a#k2", "s").load()).toMatchObject({
      ok: false,
      reason: "other-identity",
    });
    expect(await new StateCache(path, "fleet:https://a#k1", "other").load()).toMatchObject({
      ok: false,
      reason: "other-identity",
    });
  });

  it("coalesces: one write in flight, the latest queued state wins, no temp file left", async () => {
    const d = dir();
    const path = join(d, "s.json");
    const cache = new StateCache(path, "local:/x", "s");
    cache.save(stateOf(snapshot(1)));
    expect(cache.writes).toBe(0); // nothing on the caller's turn
    await nextTick(); // the write of version 1 has started
    for (let v = 2; v <= 6; v++) cache.save(stateOf(snapshot(v)));
    await cache.idle();
    expect(cache.writes).toBe(2);
    const back = await cache.load();
    expect(back.ok && back.state.version).toBe(6);
    expect(readdirSync(d).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    // Saving the version already written does nothing.
    cache.save(stateOf(snapshot(6)));
    await cache.idle();
    expect(cache.writes).toBe(2);
  });

  it("reports a failed write and leaves no temp file", async () => {
    const d = dir();
    writeFileSync(join(d, "file"), "");
    const errors: unknown[] = [];
    const cache = new StateCache(join(d, "file", "s.json"), "local:/x", "s", (e) => errors.push(e));
    cache.save(stateOf(snapshot(1)));
    await cache.idle();
    expect(errors.length).toBe(1);
    expect(cache.lastWrite).toBeNull();
  });
});

/** A scripted state endpoint; `answer` is held until `release()` so a test can render before the sync. */
function stateApi(answer: (since: number) => StateDelta | null) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const sinces: number[] = [];
  const fetch: FetchLike = async (input) => {
    const url = new URL(String(input));
    const json = (b: unknown, status = 200) => new Response(JSON.stringify(b), { status });
    if (url.pathname.endsWith("/state")) {
      const since = Number(url.searchParams.get("since"));
      sinces.push(since);
      await gate;
      const d = answer(since);
      return d ? json(d) : json({ error: { code: "not_found", message: "no session" } }, 404);
    }
    return json({ error: { code: "not_found", message: "?" } }, 404);
  };
  return { fetch, release, sinces };
}

function branch(n: number): AgentMessage[] {
  const out: AgentMessage[] = [U(1, "go", { plain: true })];
  for (let i = 0; i < n; i++) {
    const id = `bash_${i + 1}`;
    out.push(A(100 + i, { id, args: { command: "ls" } }), R(101 + i, id, "R".repeat(50)));
  }
  out.push(U(500, "next", { plain: true }));
  return out;
}

async function seededCache(version: number): Promise<StateCache> {
  const path = join(dir(), "s.json");
  const cache = new StateCache(path, "local:/x", "s");
  cache.save(stateOf(snapshot(version, 2)));
  await cache.idle();
  return new StateCache(path, "local:/x", "s");
}

describe("client with a state cache", () => {
  const opts = (fetch: FetchLike, stateCache: StateCache) => ({
    url: "http://api",
    sessionId: "s",
    fetch,
    sse: false,
    pollMs: 60_000,
    stateCache,
    backoff: { initialMs: 5, maxMs: 20, factor: 2 },
  });

  it("renders with the cached state before the first sync, and the same bytes after it", async () => {
    const api = stateApi(() => snapshot(5, 2));
    const client = createCondenseClient(opts(api.fetch, await seededCache(5)));
    const messages = branch(2);
    const started = client.start(messages);
    await until(() => client.state.version === 5);
    client.applyPending(messages);
    const before = client.render(messages);
    expect(before.pruned).toBe(true);
    expect(JSON.stringify(before.messages)).toContain("ref `t2`");
    // The sync asks for a full snapshot (the cache is provisional), and supersedes it.
    api.release();
    await started;
    expect(api.sinces[0]).toBe(0);
    client.applyPending(messages);
    expect(client.state.version).toBe(5);
    expect(JSON.stringify(client.render(messages).messages)).toBe(JSON.stringify(before.messages));
    await client.close();
  });

  it("the service wins over a newer cache: wiped (404) or behind (lower version)", async () => {
    for (const answer of [null, snapshot(2, 1)]) {
      const api = stateApi(() => answer);
      const client = createCondenseClient(opts(api.fetch, await seededCache(9)));
      const messages = branch(2);
      const started = client.start(messages);
      await until(() => client.state.version === 9);
      api.release();
      await started;
      client.applyPending(messages);
      expect(client.state.version).toBe(answer ? 2 : 0);
      const out = JSON.stringify(client.render(messages).messages);
      expect(out.includes("ref `t2`")).toBe(false);
      await client.close();
    }
  });

  it("a first render before the asynchronous read has finished reads the cache synchronously", async () => {
    const api = stateApi(() => snapshot(5, 2));
    const client = createCondenseClient(opts(api.fetch, await seededCache(5)));
    const messages = branch(2);
    // Same event-loop turn as the client's creation: the asynchronous read cannot have finished.
    const out = client.render(messages);
    expect(out.pruned).toBe(true);
    expect(client.state.version).toBe(5);
    api.release();
    await client.close();
  });

  it("a state is never seeded under a render that already went out", () => {
    const mirror = new StateMirror({ request: async () => ({}), stream: async () => ({}) } as never, "/s");
    mirror.renderInputs(branch(1), normalizeSettings({}));
    expect(mirror.seed(stateOf(snapshot(5)))).toBe(false);
    expect(mirror.applied.version).toBe(0);
    const fresh = new StateMirror({ request: async () => ({}), stream: async () => ({}) } as never, "/s");
    expect(fresh.seed(stateOf(snapshot(5)))).toBe(true);
    expect(fresh.seeded).toBe(true);
  });

  it("writes each applied state off the turn", async () => {
    const path = join(dir(), "s.json");
    const cache = new StateCache(path, "local:/x", "s");
    const api = stateApi(() => snapshot(4, 2));
    api.release();
    const client = createCondenseClient(opts(api.fetch, cache));
    await client.start(branch(2));
    await until(() => cache.lastWrite !== null);
    const back = await new StateCache(path, "local:/x", "s").load();
    expect(back.ok && back.state.version).toBe(4);
    await client.close();
  });
});
