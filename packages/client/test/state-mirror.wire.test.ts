/**
 * The state mirror against a real HTTP server speaking the API's wire: a pulled delta is staged and
 * rendering keeps the applied state until a safe boundary applies it; a version gap (the service
 * compacted its history) is healed by a full snapshot; before the first capture there is no state;
 * the render session's apply waits (a bounded number of calls) for staged summaries to reach the context.
 */
import { A, R } from "@condense/test-support/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@condense/core";
import { normalizeSettings } from "@condense/core";
import { DEFAULT_BACKOFF } from "../src/backoff.ts";
import type { ClientEvent } from "../src/client-events.ts";
import { RenderSession } from "../src/render-session.ts";
import { StateMirror, type StagedChange } from "../src/state-mirror.ts";
import { createTransport } from "../src/transport.ts";
import { startWireServer, summary, type WireServer } from "./support/wire-server.ts";

let wire: WireServer;
beforeEach(async () => {
  wire = await startWireServer();
});
afterEach(async () => {
  await wire.stop();
});
const transport = () => createTransport({ baseUrl: wire.url, timeoutMs: 2_000 });
const ids = (xs: readonly { id: string }[]) => xs.map((s) => s.id);
const stateRequests = () => wire.requests.filter((r) => r.route === "state").map((r) => r.path.split("?")[1]);

describe("state mirror over the wire", () => {
  it("stages a pulled delta and applies it only when asked", async () => {
    const staged: StagedChange[] = [];
    const mirror = new StateMirror(transport(), "/v1/sessions/s", (c) => staged.push(c));
    wire.publish([summary("a")]);
    expect(await mirror.pull()).toBe(true);
    expect(mirror.applied.version).toBe(0);
    expect(mirror.staged?.version).toBe(1);
    expect(ids(mirror.pendingSummaries())).toEqual(["a"]);
    expect(staged.map((c) => [c.version, ids(c.newSummaries)])).toEqual([[1, ["a"]]]);

    // a second version while one is staged: staged on top of the staged one, applied still unchanged
    wire.publish([summary("b")]);
    expect(await mirror.pull()).toBe(true);
    expect(mirror.applied.version).toBe(0);
    expect(ids(mirror.pendingSummaries())).toEqual(["a", "b"]);
    expect(stateRequests()).toEqual(["since=0", "since=1"]);

    expect(mirror.apply()).toBe(true);
    expect(mirror.applied.version).toBe(2);
    expect(ids(mirror.applied.summaries)).toEqual(["a", "b"]);
    expect(mirror.staged).toBeNull();
    expect(mirror.pendingSummaries()).toEqual([]);
    // nothing new: nothing staged, apply changes nothing
    expect(await mirror.pull()).toBe(false);
    expect(mirror.apply()).toBe(false);
    expect(mirror.knownVersion).toBe(2);
  });

  it("has no state before the session exists, and no error either", async () => {
    const mirror = new StateMirror(transport(), "/v1/sessions/s");
    expect(await mirror.pull()).toBe(false);
    expect(mirror.lastPullError).toBeNull();
    expect(mirror.staged).toBeNull();
  });

  it("heals a version gap with a full snapshot", async () => {
    const mirror = new StateMirror(transport(), "/v1/sessions/s");
    wire.publish([summary("a")]);
    await mirror.pull();
    mirror.apply();
    wire.publish([summary("b")]);
    wire.publish([summary("c")]);
    wire.compactBefore(2); // a delta since 1 would start at 2: the mirror must refetch since=0
    expect(await mirror.pull()).toBe(true);
    expect(stateRequests()).toEqual(["since=0", "since=1", "since=0"]);
    mirror.apply();
    expect(mirror.applied.version).toBe(3);
    expect(ids(mirror.applied.summaries)).toEqual(["a", "b", "c"]);
  });

  it("records a failing pull and clears it once the service answers", async () => {
    const mirror = new StateMirror(transport(), "/v1/sessions/s");
    wire.publish([summary("a")]);
    wire.refuse("state", 503, "unavailable");
    await expect(mirror.pull()).rejects.toThrow(/503/);
    expect(mirror.lastPullError).toMatch(/503/);
    expect(mirror.staged).toBeNull();
    expect(await mirror.pull()).toBe(true);
    expect(mirror.lastPullError).toBeNull();
  });

  it("the render session applies a staged delta once its summaries are in the context, or after the deferral budget", async () => {
    const events: ClientEvent[] = [];
    const settings = normalizeSettings({});
    const session = new RenderSession({
      transport: transport(),
      sessionPath: "/v1/sessions/s",
      backoff: DEFAULT_BACKOFF,
      settings: () => settings,
      maxApplyDeferrals: 2,
      onLanded: () => {},
      emit: (e) => events.push(e),
    });
    const summaryMessage = (id: string) =>
      ({
        role: "custom",
        customType: "condense-summary",
        content: `summary ${id}`,
        display: false,
        details: { summaryId: id },
        timestamp: 1,
      }) as unknown as AgentMessage;
    const call = (id: string) => A(1, { id, name: "bash", args: {} });
    const result = (id: string) => R(1, id, "out", { name: "bash" });
    // the summary covers a call on this branch, so the apply waits for it to be delivered
    const context = [call("a-call"), result("a-call")];

    wire.publish([summary("a")]);
    await session.mirror.pull();
    expect(events.map((e) => e.type)).toEqual(["staged"]);
    expect(session.applyPending(context)).toBe(false);
    expect(session.applyPending(context)).toBe(false);
    expect(session.mirror.applied.version).toBe(0);
    // the budget is spent: applied anyway
    expect(session.applyPending(context)).toBe(true);
    expect(session.mirror.applied.version).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: "applied", version: 1 });

    wire.publish([summary("b", ["b-call@1"])]);
    await session.mirror.pull();
    const next = [call("b-call"), result("b-call")];
    expect(session.applyPending(next)).toBe(false);
    // the summary reached the context: applied at once
    expect(session.applyPending([...next, summaryMessage("b")])).toBe(true);
    expect(session.mirror.applied.version).toBe(2);
    session.close();
  });
});
