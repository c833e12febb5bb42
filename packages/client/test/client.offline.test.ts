/**
 * The client's promises to the agent, against a scripted service at the fetch boundary: nothing the agent
 * waits on touches the network, nothing is lost while the service is down (memory and spool), resends
 * are idempotent by construction, and the mirror heals a version gap with a full snapshot.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STATE_DELTA_FORMAT, type AgentMessage, type StateDelta } from "@condense/core";
import { F, turn, U } from "@condense/test-support/messages";
import { captureIdFor, type FetchLike } from "../src/index.ts";
import { offlineClient } from "./support/offline-client.ts";

const big = (n: number) => `${"x".repeat(60)}\n`.repeat(n);
/** A scripted API: records every call; `down` makes every request fail like a refused connection. */
function scriptedApi(state: { down: boolean; deltas?: (since: number) => StateDelta }) {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const stored = new Set<string>();
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(String(input));
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method: init?.method ?? "GET", path: url.pathname + url.search, body });
    if (state.down) throw new TypeError("fetch failed: ECONNREFUSED");
    const json = (b: unknown, status = 200) => new Response(JSON.stringify(b), { status });
    if (url.pathname.endsWith("/captures")) {
      let accepted = 0;
      for (const b of body.batches)
        for (const c of b.toolCalls) {
          const k = `${c.toolCallId}@${c.resultTimestamp}`;
          if (!stored.has(k)) {
            stored.add(k);
            accepted++;
          }
        }
      return json({ captureId: body.captureId, accepted, duplicates: 0, maxSeq: stored.size });
    }
    if (url.pathname.endsWith("/flushes"))
      return json({ flushId: body.flushId, cursor: stored.size, trigger: body.trigger, created: true }, 202);
    if (url.pathname.endsWith("/state"))
      return state.deltas
        ? json(state.deltas(Number(url.searchParams.get("since"))))
        : json({ error: { code: "not_found", message: "no session" } }, 404);
    return json({ error: { code: "not_found", message: "?" } }, 404);
  };
  return { fetch, calls, stored };
}

describe("client offline behaviour", () => {
  it("capture, triggers and render never touch the network; render fails open on junk", () => {
    const api = scriptedApi({ down: true });
    const client = offlineClient(api, { url: "http://api.invalid", apiKey: "ck_x" });
    const t = turn(100, "bash_1", big(30));
    const before = api.calls.length;
    const messages: AgentMessage[] = [U(1, "go", { plain: true }), t.message, ...t.toolResults];
    const out = client.render(messages);
    expect(out.messages).toBe(messages); // nothing applied: the same reference
    expect(client.render([{ role: "assistant" } as unknown as AgentMessage]).pruned).toBe(false);
    client.turnEnd({ toolResultCount: 1, pushedThisTurn: false, usage: null, branch: () => messages });
    expect(api.calls.length).toBe(before); // sends happen later, in the background
    void client.close();
  });

  it("keeps captures while the API is down and delivers each once when it is back", async () => {
    const state = { down: true };
    const api = scriptedApi(state);
    const client = offlineClient(api, { apiKey: "ck_x" });
    const turns = [turn(100, "bash_1", big(30)), turn(200, "bash_1", big(30))]; // a reused provider id
    turns.forEach((t, i) => {
      expect(client.capture({ ...t, turnIndex: i }).pushed).toBe(true);
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(api.stored.size).toBe(0);
    expect(client.outboxSize).toBe(2);
    expect(client.degraded).toBe(true);
    state.down = false;
    expect(await client.drain(5_000)).toBe(true);
    expect([...api.stored].sort()).toEqual(["bash_1@101", "bash_1@201"]);
    expect(client.degraded).toBe(false);
    await client.close();
  });

  it("a crash before acknowledgement is healed from the spool file, with the same capture ids", async () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-spool-"));
    const spoolPath = join(dir, "s.spool.jsonl");
    const down = scriptedApi({ down: true });
    const first = offlineClient(down, { spoolPath });
    const r = first.capture({ ...turn(300, "read_7", big(40)), turnIndex: 0 });
    await first.close(); // the process "dies" with the capture unsent
    expect(readFileSync(spoolPath, "utf8")).toContain(r.captureId!);
    const up = scriptedApi({ down: false });
    const second = offlineClient(up, { spoolPath });
    expect(await second.drain(5_000)).toBe(true);
    expect([...up.stored]).toEqual(["read_7@301"]);
    const sent = up.calls.find((c) => c.path.endsWith("/captures"))!.body as { captureId: string; batches: never[] };
    expect(sent.captureId).toBe(r.captureId);
    expect(captureIdFor("s", sent.batches)).toBe(r.captureId);
    await second.close();
  });

  it("capture leaves the storable copy, the spool line and the send to the next event-loop turn, in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-spool-"));
    const spoolPath = join(dir, "s.spool.jsonl");
    const state = { down: true }; // nothing is acknowledged (and unspooled) before the checks below
    const api = scriptedApi(state);
    const client = offlineClient(api, { spoolPath });
    // An id carrying a NUL: the POST carries its storable form, and the capture id is that form's.
    const t = turn(100, "bash_\u0000x", `out \u0000 ${big(5)}`);
    const r = client.capture({ ...t, turnIndex: 0 });
    const flushId = client.flushNow([t.message, ...t.toolResults], null);
    // Nothing happened yet on the agent's turn: no spool line, no request.
    expect(existsSync(spoolPath) ? readFileSync(spoolPath, "utf8") : "").toBe("");
    expect(api.calls).toHaveLength(0);
    expect(client.outboxSize).toBeGreaterThanOrEqual(2);
    await new Promise((res) => setImmediate(res));
    expect(readFileSync(spoolPath, "utf8")).toContain(r.captureId!);
    expect(api.calls.map((c) => c.path.split("/").pop())).toEqual(["captures"]); // the first attempt, refused
    state.down = false;
    expect(await client.drain(5_000)).toBe(true);
    const posts = api.calls.filter((c) => c.method === "POST").map((c) => c.path.split("/").pop());
    expect(posts.lastIndexOf("captures")).toBeLessThan(posts.indexOf("flushes")); // the flush never overtakes its capture
    const sent = api.calls.find((c) => c.path.endsWith("/captures"))!.body as {
      captureId: string;
      batches: { toolCalls: { toolCallId: string; resultText: string }[] }[];
    };
    expect(sent.batches[0]!.toolCalls[0]!.toolCallId).toBe("bash_\uFFFDx");
    expect(sent.batches[0]!.toolCalls[0]!.resultText).not.toContain("\u0000");
    expect(sent.captureId).toBe(r.captureId);
    expect(captureIdFor("s", sent.batches as never)).toBe(r.captureId);
    expect(flushId.flush).toBe(true);
    await client.close();
  });

  it("an automatic trigger builds its flush request after the agent's turn; drain and close never lose it", async () => {
    const api = scriptedApi({ down: true });
    const events: { type: string; buildMs?: number }[] = [];
    const client = offlineClient(api, { onEvent: (e) => events.push(e) });
    const t = turn(100, "bash_1", big(30));
    const reply = F(300);
    const branch: AgentMessage[] = [U(1, "go", { plain: true }), t.message, ...t.toolResults, reply];
    client.capture({ ...t, turnIndex: 0 });
    const d = client.messageEnd(reply, () => branch);
    expect(d.flush).toBe(true);
    // On the turn: the trigger fired, nothing was built or queued yet, and a second trigger waits for it.
    expect(client.outboxSize).toBe(1);
    expect(client.trigger.flushing).toBe(true);
    expect(events.some((e) => e.type === "flush-queued")).toBe(false);
    await new Promise((res) => setImmediate(res));
    expect(client.outboxSize).toBe(2);
    expect(client.trigger.flushing).toBe(false);
    const queued = events.find((e) => e.type === "flush-queued")!;
    expect(queued.buildMs).toBeGreaterThanOrEqual(0);
    expect(client.metrics).not.toBeNull();
    // close() right after a trigger still queues (and here: keeps, the API being down) the request.
    const second = offlineClient(api, { sessionId: "s2" });
    second.capture({ ...t, turnIndex: 0 });
    expect(second.messageEnd(reply, () => branch).flush).toBe(true);
    const drained = second.drain(50);
    expect(second.outboxSize).toBe(2);
    await drained;
    await second.close();
    await client.close();
  });

  it("a restart rescans the branch and resends what was never acknowledged", async () => {
    const api = scriptedApi({ down: false });
    const client = offlineClient(api);
    const a = turn(100, "bash_1", big(30));
    const b = turn(200, "bash_2", big(30));
    const branch: AgentMessage[] = [
      U(1, "go", { plain: true }),
      a.message,
      ...a.toolResults,
      b.message,
      ...b.toolResults,
    ];
    const started = await client.start(branch, { syncTimeoutMs: 1_000 });
    expect(started.resent).toBe(2);
    expect(started.rearmed).toBe(true);
    expect(await client.drain(5_000)).toBe(true);
    expect([...api.stored].sort()).toEqual(["bash_1@101", "bash_2@201"]);
    await client.close();
  });

  it("stages deltas, applies them only when asked, and heals a version gap with since=0", async () => {
    const rec = (key: string, ts: number) => ({
      key,
      toolCallId: key.split("@")[0]!,
      toolName: "bash",
      args: {},
      resultText: "R",
      isError: false,
      turnIndex: 0,
      timestamp: ts,
      resultTimestamp: ts,
      shortRef: "t1",
    });
    const full: StateDelta = {
      format: STATE_DELTA_FORMAT,
      fromVersion: 0,
      toVersion: 5,
      records: [rec("bash_1@101", 101)],
      summaries: [],
      aliases: [],
      chains: [],
    };
    let gapServed = false;
    const api = scriptedApi({
      down: false,
      // The first answer claims to start at version 3: a gap for a mirror at 0.
      deltas: (since) => (since === 0 && gapServed ? full : ((gapServed = true), { ...full, fromVersion: 3 })),
    });
    const client = offlineClient(api);
    expect(await client.sync()).toBe(true);
    expect(client.state.version).toBe(0); // staged, not applied
    const t = turn(100, "bash_1", "R");
    const messages: AgentMessage[] = [U(1, "go", { plain: true }), t.message, ...t.toolResults];
    expect(client.render(messages).pruned).toBe(false);
    expect(client.applyPending(messages)).toBe(true);
    expect(client.state.version).toBe(5);
    const out = client.render(messages);
    expect(out.pruned).toBe(true);
    expect(JSON.stringify(out.messages)).toContain("ref `t1`");
    expect(api.calls.filter((c) => c.path.includes("/state?since=0")).length).toBe(2);
    await client.close();
  });

  it("a drain while the service is unreachable gives up at once; the spool keeps the capture for the next process", async () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-drain-"));
    const spoolPath = join(dir, "s.spool.jsonl");
    const api = scriptedApi({ down: false });
    // A local service still starting: the host never resolves while this process runs.
    const never = new Promise<never>(() => {});
    const client = offlineClient(null, { host: () => never, spoolPath });
    const r = client.capture({ ...turn(100, "bash_1", big(30)), turnIndex: 0 });
    const t0 = performance.now();
    expect(await client.drain(5_000, { whileReachable: true })).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1_000);
    await client.close();
    expect(readFileSync(spoolPath, "utf8")).toContain(r.captureId!);
    // The next process on the session sends it once its service answers, and then drains.
    const second = offlineClient(api, { spoolPath });
    expect(await second.drain(5_000, { whileReachable: true })).toBe(true);
    expect(
      api.calls.some(
        (c) => c.path.endsWith("/captures") && (c.body as { captureId: string }).captureId === r.captureId,
      ),
    ).toBe(true);
    await second.close();
  });

  it("a drain with an idle bound waits while the service keeps acknowledging, and not once it stops", async () => {
    const api = scriptedApi({ down: false });
    // A restarted service working off a backlog: every request answers, 40 ms each.
    let hang = false;
    const slow: FetchLike = (input, init) =>
      new Promise((resolve, reject) => {
        const signal = init?.signal;
        signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        if (hang) return;
        setTimeout(() => resolve(api.fetch(input, init)), 40);
      });
    const client = offlineClient({ fetch: slow });
    for (let i = 0; i < 10; i++) client.capture({ ...turn(100 + 10 * i, `bash_${i}`, big(30)), turnIndex: i });
    // 10 x 40 ms is well past the 150 ms idle bound, but something is acknowledged every 40 ms.
    expect(await client.drain(5_000, { idleMs: 150 })).toBe(true);
    expect(client.outboxSize).toBe(0);
    expect(api.stored.size).toBe(10);
    // A service that stops answering: the drain gives up after the idle bound, not the whole timeout.
    hang = true;
    client.capture({ ...turn(900, "bash_late", big(30)), turnIndex: 10 });
    const t0 = performance.now();
    expect(await client.drain(5_000, { idleMs: 150 })).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(client.outboxSize).toBe(1);
    await client.close();
  });

  it("a drain against a service that answers waits for the acknowledgements", async () => {
    const api = scriptedApi({ down: false });
    const host = { baseUrl: "http://api", apiKey: "k", fetch: api.fetch, close: async () => {}, reachable: () => true };
    const client = offlineClient(null, { host });
    client.capture({ ...turn(100, "bash_1", big(30)), turnIndex: 0 });
    expect(await client.drain(5_000, { whileReachable: true })).toBe(true);
    expect(client.outboxSize).toBe(0);
    await client.close();
  });

  it("the context's size at a message end is asked for only when that message asks for a flush", async () => {
    const api = scriptedApi({ down: false });
    const client = offlineClient(api);
    const t = turn(100, "bash_1", big(30));
    const reply = F(300);
    const branch: AgentMessage[] = [U(1, "go", { plain: true }), t.message, ...t.toolResults];
    let asked = 0;
    const usage = () => {
      asked++;
      return { tokens: 4321, contextWindow: 100_000 };
    };
    expect(client.messageEnd(t.message, () => branch, usage).flush).toBe(false);
    expect(asked).toBe(0);
    client.capture({ ...t, turnIndex: 0 });
    expect(client.messageEnd(reply, () => [...branch, reply], usage).flush).toBe(true);
    expect(asked).toBe(1);
    expect(await client.drain(5_000)).toBe(true);
    const flush = api.calls.find((c) => c.path.endsWith("/flushes"))!.body as { metrics: { tokens: number } };
    expect(flush.metrics.tokens).toBe(4321);
    await client.close();
  });
});
