/**
 * A `roi` flush decided where the gate weighs chains (a known cold moment, a reply): the chains are
 * detected and sized once, by the gate, on one read of the branch, and the request's build reuses them
 * (chain-candidates.ts): the request carries exactly what a build of its own would have carried.
 */
import { createState, normalizeSettings, type AgentMessage } from "@condense/core";
import { A, F, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { buildFlushRequest } from "../src/flush-request.ts";
import type { FetchLike } from "../src/index.ts";
import { offlineClient } from "./support/offline-client.ts";

const chainOf = (start: number, size: number, id: string) => [
  U(start),
  A(start + 10, id),
  R(start + 15, id, "x".repeat(size)),
  F(start + 90),
];
// A large chain far back (it pays at a cold moment), then three small ones (the rolling window).
const branch: AgentMessage[] = [
  ...chainOf(100, 400, "a1"),
  ...chainOf(200, 20_000, "b1"),
  ...chainOf(300, 400, "c1"),
  ...chainOf(400, 400, "d1"),
  ...chainOf(500, 400, "e1"),
];

function recordingApi() {
  const flushes: { chains: { startUserTimestamp: number }[] }[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(String(input));
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    const json = (b: unknown, status = 200) => new Response(JSON.stringify(b), { status });
    if (url.pathname.endsWith("/flushes")) {
      flushes.push(body);
      return json({ flushId: body.flushId, cursor: 0, trigger: body.trigger, created: true }, 202);
    }
    return json({ error: { code: "not_found", message: "no session" } }, 404);
  };
  return { fetch, flushes };
}

describe("a roi flush's chains are sized once", () => {
  it("a cold moment's flush reads the branch once and sends the chains its own build would send", async () => {
    const api = recordingApi();
    const settings = {
      flushPolicy: "roi",
      pruneOn: "agent-message",
      chainCompression: { enabled: true, rollingWindow: 3 },
    };
    const client = offlineClient(api, { settings });
    // A warm agent loop: the cost model expects calls to come that the reclaim pays back over.
    for (let i = 0; i < 30; i++)
      client.messageEnd(A(1_000 + i, `w${i}`), () => branch, undefined, {
        input: 0,
        cacheRead: 700 * i,
        cacheWrite: 700,
        output: 100,
      });
    let reads = 0;
    const d = client.markCold("model-switch", () => {
      reads++;
      return branch;
    });
    expect(d.flush).toBe(true);
    expect(d.trigger).toBe("roi");
    expect(reads).toBe(1);
    const roi = client.trigger.lastRoiInput!;
    expect(await client.drain(5_000)).toBe(true);
    expect(api.flushes).toHaveLength(1);
    const own = buildFlushRequest({ trigger: "roi", branch, roi }, createState(), normalizeSettings(settings));
    expect(api.flushes[0]!.chains).toEqual(own.body.chains);
    expect(api.flushes[0]!.chains.map((c) => c.startUserTimestamp)).toContain(200);
    await client.close();
  });
});
