/**
 * The transport's errors carry codes of the one vocabulary (@condense/contract/vocabulary): the API's
 * own code when it answered with its error body, the status's code for an answer without it, and a
 * transport code when no usable answer arrived.
 */
import { ERROR_CODES } from "@condense/contract/vocabulary";
import { describe, expect, it } from "vitest";
import { CondenseHttpError, createTransport, type FetchLike } from "../src/transport.ts";

async function failure(fetch: FetchLike, opts: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const t = createTransport({ baseUrl: "http://condense.test", fetch, timeoutMs: opts.timeoutMs ?? 1000 });
  const err = await t.request("GET", "/v1/sessions/s/status", undefined, opts.signal).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CondenseHttpError);
  const e = err as CondenseHttpError;
  expect(ERROR_CODES).toContain(e.code);
  return e;
}

/** A fetch that never answers, and rejects as fetch does when its signal fires. */
const hanging: FetchLike = (_input, init) =>
  new Promise((_resolve, reject) => {
    init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
  });

describe("transport errors use the one vocabulary", () => {
  it("the API's error body gives its own code", async () => {
    const e = await failure(async () =>
      Response.json(
        { error: { code: "summarizer_not_handed_off", message: "hand it off", requestId: "r" } },
        { status: 409 },
      ),
    );
    expect([e.status, e.code, e.retryable]).toEqual([409, "summarizer_not_handed_off", false]);
  });

  it("an error status without the API's body gets the status's code", async () => {
    const proxy = await failure(async () => new Response("<html>bad gateway</html>", { status: 503 }));
    expect([proxy.status, proxy.code, proxy.retryable]).toEqual([503, "unavailable", true]);
    const odd = await failure(async () => Response.json({ error: { code: "made_up" } }, { status: 404 }));
    expect(odd.code).toBe("not_found");
  });

  it("no connection is unreachable, no answer in time is timeout, a cancelled call is cancelled", async () => {
    const refused = await failure(async () => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    });
    expect([refused.status, refused.code, refused.retryable]).toEqual([0, "unreachable", true]);
    const slow = await failure(hanging, { timeoutMs: 20 });
    expect([slow.code, slow.message]).toEqual(["timeout", "GET /v1/sessions/s/status: timed out after 20 ms"]);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 10);
    const cancelled = await failure(hanging, { timeoutMs: 5000, signal: stop.signal });
    expect(cancelled.code).toBe("cancelled");
  });

  it("a success whose body is not JSON is bad_response", async () => {
    const e = await failure(async () => new Response("not json", { status: 200 }));
    expect([e.status, e.code]).toEqual([200, "bad_response"]);
  });

  it("a stream that cannot open carries the status's code, or unreachable", async () => {
    const t = createTransport({
      baseUrl: "http://condense.test",
      fetch: async () => new Response(null, { status: 401 }),
    });
    const e = (await t
      .stream("/v1/sessions/s/events", new AbortController().signal)
      .catch((x: unknown) => x)) as CondenseHttpError;
    expect([e.status, e.code]).toEqual([401, "unauthorized"]);
    const down = createTransport({
      baseUrl: "http://condense.test",
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    const d = (await down
      .stream("/v1/sessions/s/events", new AbortController().signal)
      .catch((x: unknown) => x)) as CondenseHttpError;
    expect([d.status, d.code]).toEqual([0, "unreachable"]);
  });
});
