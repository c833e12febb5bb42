/**
 * The counters two alert rules read (infra/prometheus/alerts.yml): render diagnostics newly stored, by
 * kind, and the cache tokens accepted flush requests expect to rewrite and to save. Each kind's series
 * exists from the start (0), a repeated (kind, key) does not count twice, and a retried flush request
 * (same flushId) adds its expectation once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiMetrics } from "../src/observability/http-metrics.ts";
import { createHarness, post, type Harness, type TestTenant } from "./support/harness.ts";

const metricValue = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("alert metrics (app.request)", () => {
  let h: Harness;
  let t: TestTenant;
  const metrics = createApiMetrics();
  beforeAll(async () => {
    h = await createHarness({ deps: { metrics } });
    t = await h.tenant();
  });
  afterAll(async () => h?.close());

  it("counts newly stored render diagnostics by kind, every kind present from the start", async () => {
    const start = await metrics.registry.metrics();
    for (const kind of [
      "unresolved-range",
      "range-id-mismatch",
      "orphan-sweep",
      "backfill-empty",
      "malformed-message",
    ]) {
      expect(metricValue(start, `condense_api_render_diagnostics_total{kind="${kind}"}`), kind).toBe(0);
    }
    const body = {
      diagnostics: [
        { kind: "orphan-sweep", dedupKey: "a" },
        { kind: "orphan-sweep", dedupKey: "b" },
        { kind: "malformed-message", dedupKey: "m1" },
      ],
    };
    expect((await h.request("/v1/sessions/d1/diagnostics", post(t.headers, body))).status).toBe(200);
    // The same reports again: stored once, counted once.
    expect((await h.request("/v1/sessions/d1/diagnostics", post(t.headers, body))).status).toBe(200);
    const text = await metrics.registry.metrics();
    expect(metricValue(text, 'condense_api_render_diagnostics_total{kind="orphan-sweep"}')).toBe(2);
    expect(metricValue(text, 'condense_api_render_diagnostics_total{kind="malformed-message"}')).toBe(1);
    expect(metricValue(text, 'condense_api_render_diagnostics_total{kind="unresolved-range"}')).toBe(0);
  });

  // Session d1 exists since the diagnostics above (a flush for an unknown session is a 404).
  it("adds each accepted flush request's expected cache writes and savings once", async () => {
    const flush = {
      trigger: "roi",
      flushId: "0b6f3c2a-8d4e-4f1a-9c3b-5e7d2a1f0c99",
      metrics: {
        openCycleThinkingTokens: 0,
        largestChainSharePct: 0,
        frontierGapTokens: 30500,
        tokens: 91000,
        contextWindow: 200000,
        expectedCacheWriteTokens: 1200,
        expectedCacheReadSavedTokens: 5400,
      },
    };
    expect((await h.request("/v1/sessions/d1/flushes", post(t.headers, flush))).status).toBe(202);
    expect((await h.request("/v1/sessions/d1/flushes", post(t.headers, flush))).status).toBe(202);
    const text = await metrics.registry.metrics();
    expect(metricValue(text, "condense_api_flush_cache_write_tokens_total")).toBe(1200);
    expect(metricValue(text, "condense_api_flush_cache_read_saved_tokens_total")).toBe(5400);
  });
});
