/**
 * The CLI's parts that do not need a whole replay: the cache-aware cost meter, price lookup,
 * summarizer flags, the pairing check, progress output, the worker's metrics endpoint, and the
 * operator commands (migrate, tenant, key, status) in-process on a throwaway PGlite directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Counter, Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "@condense/core";
import { A, R, U } from "@condense/test-support/messages";
import { runCaptured as run } from "./support/captured-cli.ts";
import { startMetricsServer } from "../src/metrics-server.ts";
import { CacheCostMeter } from "../src/replay/cache-cost.ts";
import { withTimestamps } from "../src/replay/load-session.ts";
import { pairingViolations } from "../src/replay/pairing-check.ts";
import { priceOf } from "../src/replay/price-model.ts";
import { createProgress } from "../src/replay/progress.ts";
import { sampleCalls } from "../src/replay/report-text.ts";
import { summarizerEnvFromFlags } from "../src/summarizer-flags.ts";

describe("cache-aware cost", () => {
  const price = { model: "x/y", input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 };
  const chars = (m: readonly AgentMessage[]) => JSON.stringify(m).length;

  it("an appended history reads its old prefix and writes only the tail", () => {
    const meter = new CacheCostMeter(price);
    const a = [U(1, "x".repeat(4000))];
    const first = meter.request(a, chars(a));
    expect(first.read).toBe(0);
    expect(first.write).toBe(Math.round(chars(a) / 4));
    const b = [...a, A(2, "c1"), R(3, "c1", "y".repeat(8000))];
    const second = meter.request(b, chars(b));
    expect(second.read).toBe(Math.round(chars(a) / 4));
    expect(second.read + second.write).toBe(Math.round(chars(b) / 4));
  });

  it("a rewritten message breaks the prefix there: everything after it is written again", () => {
    const meter = new CacheCostMeter(price);
    const a = [U(1, "x".repeat(4000)), A(2, "c1"), R(3, "c1", "y".repeat(8000)), U(4, "z".repeat(400))];
    meter.request(a, chars(a));
    // Equal content in new objects still counts as the same prefix.
    const same = a.map((m) => structuredClone(m));
    expect(meter.request(same, chars(same)).write).toBeLessThanOrEqual(1);
    const stubbed = [a[0]!, a[1]!, R(3, "c1", "[condensed: see t1]"), a[3]!];
    const r = meter.request(stubbed, chars(stubbed));
    expect(r.read).toBe(Math.round(chars([a[0]!, a[1]!]) / 4));
    expect(r.write).toBe(Math.round(chars(stubbed) / 4) - r.read);
    expect(r.write).toBeLessThan(200);
    expect(meter.tally.requests).toBe(3);
    expect(meter.tally.costUsd).toBeCloseTo(
      (meter.tally.cacheReadTokens * 0.3 + meter.tally.cacheWriteTokens * 3.75) / 1e6,
      12,
    );
  });

  it("prices come from pi-ai's catalogue; unknown models are a usage error with suggestions", () => {
    expect(priceOf("anthropic/claude-sonnet-4-5")).toMatchObject({
      model: "anthropic/claude-sonnet-4-5",
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(() => priceOf("anthropic/claude-sonnet-9")).toThrow(/unknown price model/);
    expect(() => priceOf("nope/x")).toThrow(/unknown price model provider/);
  });
});

describe("replay helpers", () => {
  it("pairing: orphan results and lost results are violations, results missing in the raw input are not", () => {
    const raw = [U(1, "go"), A(2, "a"), R(3, "a", "A"), A(4, "b"), U(5, "next")];
    expect(pairingViolations(raw, raw)).toEqual([]);
    expect(pairingViolations([U(1, "go"), R(3, "a", "A")], raw)).toEqual([
      "tool result a does not answer a call of its turn",
    ]);
    expect(pairingViolations([U(1, "go"), A(2, "a"), U(5, "next")], raw)).toEqual(["tool call a lost its result"]);
  });

  it("timestamps are filled in ascending order, existing ones kept", () => {
    const out = withTimestamps([
      { role: "user", content: "a" },
      U(10_000, "b"),
      { role: "user", content: "c" },
      U(5, "d"),
    ]);
    expect(out.map((m) => m.timestamp)).toEqual([9000, 10_000, 11_000, 12_000]);
  });

  it("samples keep the first and the last call", () => {
    const calls = Array.from({ length: 100 }, (_, i) => i);
    const s = sampleCalls(calls, 5);
    expect(s).toEqual([0, 25, 50, 74, 99]);
    expect(sampleCalls([1, 2], 5)).toEqual([1, 2]);
  });

  it("progress: redraws in place on a TTY, plain lines per 10% otherwise", () => {
    let tty = "";
    let t = 0;
    const p = createProgress(
      (s) => {
        tty += s;
      },
      true,
      "replay",
      () => (t += 200),
    );
    for (let call = 1; call <= 3; call++)
      p.update({ call, calls: 3, flushes: 0, rawTokens: 1000, condensedTokens: 400 });
    p.done();
    expect(tty).toContain("\r\x1b[2Kreplay [");
    expect(tty).toContain("-60%");
    expect(tty.includes("\n")).toBe(false);
    let plain = "";
    const q = createProgress(
      (s) => {
        plain += s;
      },
      false,
      "replay",
      () => 0,
    );
    for (let call = 1; call <= 100; call++)
      q.update({ call, calls: 100, flushes: 1, rawTokens: 10, condensedTokens: 10 });
    expect(plain.split("\n").filter(Boolean)).toHaveLength(11);
    expect(plain).not.toContain("\r");
  });
});

describe("summarizer flags", () => {
  it("no flags: the process env decides (deterministic when unset)", () => {
    expect(summarizerEnvFromFlags({}, {})).toEqual({
      CONDENSE_SUMMARIZER_MODEL: undefined,
      CONDENSE_SUMMARIZER_FALLBACK_MODEL: undefined,
      CONDENSE_SUMMARIZER_CONFIG: undefined,
    });
    expect(
      summarizerEnvFromFlags({ "summarizer-model": "anthropic/claude-haiku-4-5" }, {}).CONDENSE_SUMMARIZER_MODEL,
    ).toBe("anthropic/claude-haiku-4-5");
  });

  it("a base URL makes a custom OpenAI-compatible model and keeps an existing config", () => {
    const env = summarizerEnvFromFlags(
      { "summarizer-model": "local/qwen2.5-7b", "summarizer-base-url": "http://127.0.0.1:8080/v1/" },
      { CONDENSE_SUMMARIZER_CONFIG: JSON.stringify({ retries: 0 }) },
    );
    expect(JSON.parse(env.CONDENSE_SUMMARIZER_CONFIG!)).toEqual({
      retries: 0,
      summarizerModel: "local/qwen2.5-7b",
      customModels: [
        {
          provider: "local",
          id: "qwen2.5-7b",
          api: "openai-completions",
          baseUrl: "http://127.0.0.1:8080/v1",
          apiKey: "no-key",
        },
      ],
    });
    const keyed = summarizerEnvFromFlags(
      {
        "summarizer-model": "p/m",
        "summarizer-base-url": "https://x.example/v1",
        "summarizer-api-key-env": "MY_KEY",
        "summarizer-api": "anthropic-messages",
      },
      {},
    );
    expect(JSON.parse(keyed.CONDENSE_SUMMARIZER_CONFIG!).customModels[0]).toMatchObject({
      api: "anthropic-messages",
      apiKeyEnv: "MY_KEY",
    });
  });

  it("bad combinations are usage errors", () => {
    expect(() => summarizerEnvFromFlags({ "summarizer-base-url": "http://x" }, {})).toThrow(/needs --summarizer-model/);
    expect(() => summarizerEnvFromFlags({ "summarizer-model": "noslash" }, {})).toThrow(/provider\/model-id/);
    expect(() => summarizerEnvFromFlags({ "summarizer-model": "a/b", "summarizer-base-url": "not a url" }, {})).toThrow(
      /not a URL/,
    );
    expect(() =>
      summarizerEnvFromFlags(
        { "summarizer-model": "a/b", "summarizer-base-url": "http://x", "summarizer-api": "grpc" },
        {},
      ),
    ).toThrow(/--summarizer-api/);
  });
});

describe("worker metrics endpoint", () => {
  it("serves the registry on /metrics and answers /healthz", async () => {
    const registry = new Registry();
    new Counter({ name: "condense_test_total", help: "t", registers: [registry] }).inc(3);
    const server = await startMetricsServer(registry, 0, "127.0.0.1");
    try {
      const m = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(m.status).toBe(200);
      expect(await m.text()).toContain("condense_test_total 3");
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe("operator commands on a data directory (through the local service they start)", () => {
  const dir = mkdtempSync(join(tmpdir(), "condense-ops-"));
  const db = ["--data-dir", dir];
  afterAll(async () => {
    await run(["service", "stop", ...db]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("migrate, tenant create (idempotent), key create, status", { timeout: 120_000 }, async () => {
    const m = await run(["migrate", ...db]);
    expect(m.code).toBe(0);
    expect(m.out).toMatch(/migrations applied on PGlite at .*pglite/);
    // No service runs yet: tenant create starts the local service and goes through it.
    const t = await run(["tenant", "create", "acme", "--name", "Acme Inc", ...db]);
    expect(t.err).toBe("");
    expect(t.code).toBe(0);
    expect(t.out).toContain("tenant created: acme (Acme Inc) via the Condense local service");
    const again = await run(["tenant", "create", "acme", ...db]);
    expect(again.err).toBe("");
    expect(again.out).toContain("tenant exists: acme");
    const k = await run(["key", "create", "acme", "--label", "ci", ...db]);
    expect(k.code).toBe(0);
    expect(k.out.trim()).toMatch(/^ck_\S{20,}$/);
    expect(k.err).toContain("shown only now");
    // The key works at once against the running service (it wrote to the database the service owns).
    const { socketFetch } = await import("@condense/client");
    const f = socketFetch(join(dir, "service.sock"));
    const state = await f("http://condense.local/v1/fleet/status", {
      headers: { authorization: `Bearer ${k.out.trim()}` },
    });
    expect(state.status).toBe(200);
    // Opening the database beside its live owner is refused with what to run.
    const mig = await run(["migrate", ...db]);
    expect(mig.code).toBe(1);
    expect(mig.err).toContain("in use by the Condense local service");
    const s = await run(["status", "--json", ...db]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out)).toMatchObject({
      tenant: "local",
      ready: true,
      fleet: { flushes: { total: 0 }, queuedFlushRequests: 0 },
    });
    const st = await run(["service", "status", ...db]);
    expect(st.out).toMatch(/the Condense local service: pid \d+/);
  });

  it("errors name the next step", { timeout: 120_000 }, async () => {
    const k = await run(["key", "create", "ghost", ...db]);
    expect(k.code).toBe(3);
    expect(k.err).toContain("error: no such tenant: ghost");
    expect(k.err).toContain("condense tenant create ghost");
    expect((await run(["tenant", "create", "bad id!", ...db])).code).toBe(2);
    expect((await run(["tenant", "delete", "x", ...db])).err).toContain("unknown subcommand: tenant delete");
    const w = await run(["worker"], {});
    expect(w.code).toBe(2);
    expect(w.err).toContain("condense worker needs DATABASE_URL (postgres://...) and REDIS_URL");
    const st = await run(["status", "--url", "http://127.0.0.1:9"], {});
    expect(st.code).toBe(2);
    expect(st.err).toContain("--url needs an API key");
    const down = await run(["status", "--url", "http://127.0.0.1:9", "--api-key", "ck_x"], {});
    expect(down.code).toBe(1);
    expect(down.err).toContain("cannot reach http://127.0.0.1:9");
  });
});
