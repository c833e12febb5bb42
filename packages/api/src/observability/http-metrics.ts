/**
 * The API's own Prometheus registry (never the global one, so several apps in one process and the
 * tests do not collide): request counts and latency per route, plus gauges read at scrape time.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface ApiMetrics {
  registry: Registry;
  requests: Counter<"method" | "route" | "status">;
  duration: Histogram<"method" | "route">;
  sseClients: Gauge;
  capturesIngested: Counter;
  flushRequests: Counter<"trigger">;
  recoveries: Counter;
  /** Render diagnostics newly stored, by kind (every kind starts at 0, so a rate exists before the first). */
  renderDiagnostics: Counter<"kind">;
  /** Cache tokens the accepted flush requests expect to rewrite, and to save in reads (the client's cost model). */
  flushCacheWriteTokens: Counter;
  flushCacheReadSavedTokens: Counter;
  /** Registers a gauge whose value is read (async) at every scrape. */
  scrapeGauge(name: string, help: string, read: () => Promise<number>): void;
}

/** The kinds a client or the worker reports (packages/core's diagnostics). */
const DIAGNOSTIC_KINDS = [
  "unresolved-range",
  "range-id-mismatch",
  "orphan-sweep",
  "backfill-empty",
  "malformed-message",
] as const;

export function createApiMetrics(opts: { defaultMetrics?: boolean } = {}): ApiMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: "condense_api_" });
  const renderDiagnostics = new Counter({
    name: "condense_api_render_diagnostics_total",
    help: "Render diagnostics newly stored, by kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  for (const kind of DIAGNOSTIC_KINDS) renderDiagnostics.inc({ kind }, 0);
  return {
    registry,
    requests: new Counter({
      name: "condense_api_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    duration: new Histogram({
      name: "condense_api_request_duration_seconds",
      help: "HTTP request latency",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    sseClients: new Gauge({ name: "condense_api_sse_clients", help: "Open SSE event streams", registers: [registry] }),
    capturesIngested: new Counter({
      name: "condense_api_captures_ingested_total",
      help: "Captured tool calls newly stored",
      registers: [registry],
    }),
    flushRequests: new Counter({
      name: "condense_api_flush_requests_total",
      help: "Flush requests accepted, by trigger",
      labelNames: ["trigger"],
      registers: [registry],
    }),
    recoveries: new Counter({
      name: "condense_api_recoveries_total",
      help: "context_tree_query hits served",
      registers: [registry],
    }),
    renderDiagnostics,
    flushCacheWriteTokens: new Counter({
      name: "condense_api_flush_cache_write_tokens_total",
      help: "Cache tokens accepted flush requests expect to rewrite (the prompt prefix breaks at the first stubbed result)",
      registers: [registry],
    }),
    flushCacheReadSavedTokens: new Counter({
      name: "condense_api_flush_cache_read_saved_tokens_total",
      help: "Cache-read tokens accepted flush requests expect to save over the session's remaining requests",
      registers: [registry],
    }),
    scrapeGauge(name, help, read) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          try {
            this.set(await read());
          } catch {
            /* a failed read leaves the last value; /readyz reports the fault */
          }
        },
      });
    },
  };
}
