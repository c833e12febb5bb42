/**
 * The version watch against a real HTTP server speaking the API's wire: an SSE `version` event wakes
 * a pull without polling; a dropped stream and a service that goes away and comes back are followed
 * by a reconnect that catches up; without SSE it polls.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BackoffPolicy } from "../src/backoff.ts";
import { StateMirror } from "../src/state-mirror.ts";
import { createTransport } from "../src/transport.ts";
import { VersionWatch } from "../src/version-watch.ts";
import { startWireServer, summary, until, type WireServer } from "./support/wire-server.ts";

const BACKOFF: BackoffPolicy = { initialMs: 20, maxMs: 200, factor: 2, random: () => 0 };

let wire: WireServer;
let watch: VersionWatch | null = null;
beforeEach(async () => {
  wire = await startWireServer();
});
afterEach(async () => {
  await watch?.close();
  watch = null;
  await wire.stop();
});

function follow(opts: { pollMs: number; sse: boolean }): { mirror: StateMirror; errors: unknown[] } {
  const transport = createTransport({ baseUrl: wire.url, timeoutMs: 2_000 });
  const mirror = new StateMirror(transport, "/v1/sessions/s");
  const errors: unknown[] = [];
  watch = new VersionWatch({
    transport,
    sessionPath: "/v1/sessions/s",
    mirror,
    backoff: BACKOFF,
    onError: (e) => errors.push(e),
    ...opts,
  });
  watch.start();
  return { mirror, errors };
}
const statePulls = () => wire.requests.filter((r) => r.route === "state").length;

describe("version watch over the wire", () => {
  it("a version event on the stream wakes a pull; no polling while the stream holds", async () => {
    wire.publish([summary("a")]);
    const { mirror } = follow({ pollMs: 60_000, sse: true });
    await until(() => mirror.knownVersion === 1, 3_000, "version 1");
    expect(watch!.mode).toBe("sse");
    const pulls = statePulls();
    wire.publish([summary("b")]);
    await until(() => mirror.knownVersion === 2, 3_000, "version 2");
    // one pull per announced version, nothing in between
    expect(statePulls()).toBe(pulls + 1);
    expect(wire.streamsOpened).toBe(1);
    expect(mirror.pendingSummaries().map((s) => s.id)).toEqual(["a", "b"]);
  });

  it("reconnects after the stream drops and catches up with what was published meanwhile", async () => {
    wire.publish([summary("a")]);
    const { mirror } = follow({ pollMs: 30, sse: true });
    await until(() => mirror.knownVersion === 1 && watch!.mode === "sse", 3_000, "following");
    wire.dropStreams();
    wire.publish([summary("b")]); // no stream is open to announce it
    await until(() => mirror.knownVersion === 2, 3_000, "caught up");
    await until(() => wire.streamsOpened >= 2 && watch!.mode === "sse", 3_000, "stream reopened");
    // the new stream asks from the version the mirror knows
    const events = wire.requests.filter((r) => r.route === "events").map((r) => r.path.split("?")[1]);
    expect(events.at(-1)).toBe("since=2");
    wire.publish([summary("c")]);
    await until(() => mirror.knownVersion === 3, 3_000, "version 3 over the new stream");
  });

  it("follows a service that goes away and comes back on the same address", async () => {
    wire.publish([summary("a")]);
    const { mirror, errors } = follow({ pollMs: 30, sse: true });
    await until(() => mirror.knownVersion === 1 && watch!.mode === "sse", 3_000, "following");
    await wire.stop();
    await until(() => errors.length >= 2, 3_000, "failing pulls reported");
    expect(watch!.mode).toBe("poll");
    expect(mirror.lastPullError).toMatch(/network|ECONNREFUSED|fetch failed/i);
    wire.publish([summary("b")]);
    await wire.start();
    await until(() => mirror.knownVersion === 2, 5_000, "version 2 after the restart");
    await until(() => watch!.mode === "sse", 3_000, "stream reopened");
    expect(mirror.lastPullError).toBeNull();
  });

  it("without SSE it polls", async () => {
    const { mirror } = follow({ pollMs: 20, sse: false });
    wire.publish([summary("a")]);
    await until(() => mirror.knownVersion === 1, 3_000, "version 1 by polling");
    wire.publish([summary("b")]);
    await until(() => mirror.knownVersion === 2, 3_000, "version 2 by polling");
    expect(wire.streamsOpened).toBe(0);
    expect(watch!.mode).toBe("poll");
  });
});
