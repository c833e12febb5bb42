/**
 * PUT /v1/sessions/{id}/summarizer: the agent's model and key reach the service's in-memory registry
 * (the one the worker reads), scoped to the tenant; the key is never answered back nor logged; bad
 * bodies are 400s; a service without a registry answers 409; and a flush that expects a hand-off the
 * service no longer holds (a restart) is refused with 409 `summarizer_not_handed_off`, enqueuing nothing.
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandOffRegistry } from "../../summarizer/src/index.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createHarness, post, type Harness, type TestTenant } from "./support/harness.ts";
import { batch, call, capturesBody } from "@condense/test-support/flush-plan";

const SECRET = "sk-agent-secret-0123456789";
const model = (id: string) => ({
  provider: "fake",
  id,
  api: "openai-completions",
  baseUrl: "http://127.0.0.1:9/v1",
  contextWindow: 128000,
  maxTokens: 4096,
  cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
  compat: { supportsDeveloperRole: false },
  auth: { ok: true, apiKey: SECRET, headers: { "x-seat": "seat-secret" } },
});
const put = (headers: Record<string, string>, body: unknown): RequestInit => ({
  method: "PUT",
  headers,
  body: JSON.stringify(body),
});

describe("summarizer hand-off (app.request)", () => {
  let h: Harness;
  let t: TestTenant;
  let other: TestTenant;
  const registry = createHandOffRegistry();
  const logs: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    });
    h = await createHarness({ deps: { summarizerHandOffs: registry, logger: createLogger("debug", sink) } });
    t = await h.tenant();
    other = await h.tenant();
  });
  afterAll(async () => h?.close());

  it("stores the hand-off in memory for this tenant's session, answers without secrets, logs none", async () => {
    const r = await h.json(
      "/v1/sessions/s-new/summarizer",
      put(t.headers, { primary: model("m1"), fallback: model("m2"), notices: ["a notice"] }),
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ primary: "fake/m1", fallback: "fake/m2", notices: ["a notice"] });
    const entry = registry.get(t.tenantId, "s-new");
    expect(entry?.handOff.primary).toMatchObject({ id: "m1", auth: { ok: true, apiKey: SECRET } });
    expect(registry.get(other.tenantId, "s-new")).toBeUndefined();
    const text = logs.join("");
    expect(text).toContain("/v1/sessions/s-new/summarizer");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("seat-secret");
    // Nothing reaches the database: no session row was created by the hand-off.
    const s = await h.json("/v1/sessions/s-new/status", { headers: t.headers });
    expect(s.status).toBe(404);
  });

  it("refuses a malformed model with 400 naming the field, and keeps the earlier hand-off", async () => {
    const r = await h.json(
      "/v1/sessions/s-new/summarizer",
      put(t.headers, { primary: { ...model("m3"), baseUrl: "not a url" } }),
    );
    expect(r.status).toBe(400);
    expect(r.body.error.issues.map((i: { path: string }) => i.path)).toContain("body.primary.baseUrl");
    expect(registry.get(t.tenantId, "s-new")?.handOff.primary.id).toBe("m1");
    const noAuth = await h.json(
      "/v1/sessions/s-new/summarizer",
      put(t.headers, { primary: { ...model("m3"), auth: undefined } }),
    );
    expect(noAuth.status).toBe(400);
  });

  it("refuses a flush that expects a hand-off the service does not hold (409), and takes it once handed off", async () => {
    await h.request("/v1/sessions/s-restart/captures", post(t.headers, capturesBody("c1", [batch(0, [call("a", 1)])])));
    const before = await h.queue.counts();
    const refused = await h.json(
      "/v1/sessions/s-restart/flushes",
      post(t.headers, { trigger: "manual", summarizerHandedOff: true }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("summarizer_not_handed_off");
    expect(refused.body.error.message).toContain("PUT /v1/sessions/s-restart/summarizer");
    expect(await h.queue.counts()).toEqual(before);
    await h.request("/v1/sessions/s-restart/summarizer", put(t.headers, { primary: model("m1") }));
    const accepted = await h.json(
      "/v1/sessions/s-restart/flushes",
      post(t.headers, { trigger: "manual", summarizerHandedOff: true }),
    );
    expect(accepted.status).toBe(202);
    // A flush that expects nothing is never refused.
    const plain = await h.json("/v1/sessions/s-restart/flushes", post(t.headers, { trigger: "manual" }));
    expect(plain.status).toBe(202);
  });
});

describe("summarizer hand-off on a service without a registry", () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await createHarness();
    t = await h.tenant();
  });
  afterAll(async () => h?.close());

  it("answers 409: a fleet summarizes with its operator's models", async () => {
    const r = await h.json("/v1/sessions/s1/summarizer", put(t.headers, { primary: model("m1") }));
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "conflict" });
    expect(r.body.error.message).toContain("operator");
  });
});
