/**
 * The prefix moves only when state changes (issue 18 item 3), through the client: error purge and
 * recovery grace are decided when a state version is applied (the state mirror), so renders between
 * two applications only ever append, and the next application is what purges an old failure.
 */
import { A, F, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { STATE_DELTA_FORMAT, type AgentMessage, type StateDelta } from "@condense/core";
import type { FetchLike } from "../src/index.ts";
import { offlineClient } from "./support/offline-client.ts";

/** A service that only answers state pulls, with whatever version `served.delta` holds. */
function stateOnlyApi(served: { delta: StateDelta | null }): FetchLike {
  return async (input) => {
    const url = new URL(String(input));
    const json = (b: unknown, status = 200) => new Response(JSON.stringify(b), { status });
    if (url.pathname.endsWith("/state") && served.delta) return json(served.delta);
    return json({ error: { code: "not_found", message: "no session" } }, 404);
  };
}

const bigArgs = { command: "x".repeat(600) };
const failedTurn: AgentMessage[] = [
  U(1, "build it", { plain: true }),
  A(10, { id: "bash_1", args: bigArgs }),
  R(11, "bash_1", "error: exit 3", { isError: true }),
];
const laterTurns = (from: number, n: number): AgentMessage[] =>
  Array.from({ length: n }, (_, k) => F(from + k, `step ${k}`));
const isPrefix = (a: readonly unknown[], b: readonly unknown[]) =>
  a.every((m, i) => JSON.stringify(m) === JSON.stringify(b[i]));
const purgedIn = (ms: readonly AgentMessage[]) => JSON.stringify(ms).includes("condense-purged-error-args");

describe("render policy in the client", () => {
  it("keeps an aging failure's arguments until the next state is applied, then purges them", async () => {
    const served: { delta: StateDelta | null } = { delta: null };
    const client = offlineClient({ fetch: stateOnlyApi(served) });
    await client.start(failedTurn, { syncTimeoutMs: 1_000 });

    const first = client.render(failedTurn).messages;
    const aged = [...failedTurn, ...laterTurns(20, 4)];
    const second = client.render(aged).messages;
    // Four turns later a render-time count would purge (cooldown 2): the applied state's policy does not.
    expect(purgedIn(second)).toBe(false);
    expect(isPrefix(first, second)).toBe(true);

    // A flush lands: the next applied state decides again, over the history as it stands.
    served.delta = {
      format: STATE_DELTA_FORMAT,
      fromVersion: 0,
      toVersion: 1,
      records: [],
      summaries: [],
      aliases: [],
      chains: [],
    };
    expect(await client.sync()).toBe(true);
    expect(client.applyPending(aged)).toBe(true);
    const third = client.render(aged).messages;
    expect(purgedIn(third)).toBe(true);
    // and from then on renders only append again
    const fourth = client.render([...aged, ...laterTurns(40, 3)]).messages;
    expect(isPrefix(third, fourth)).toBe(true);
    await client.close();
  });

  it("decides again when the settings change", async () => {
    const client = offlineClient({ fetch: stateOnlyApi({ delta: null }) });
    await client.start(failedTurn, { syncTimeoutMs: 1_000 });
    const aged = [...failedTurn, ...laterTurns(20, 4)];
    client.render(failedTurn);
    expect(purgedIn(client.render(aged).messages)).toBe(false);
    client.updateSettings({ ...client.settings, purgeErrors: { ...client.settings.purgeErrors, cooldownTurns: 1 } });
    expect(purgedIn(client.render(aged).messages)).toBe(true);
    await client.close();
  });
});
