/** What every route file receives: the database, the queue port and the shared in-process services. */
import type { Db } from "@condense/db";
import type { ApiMetrics } from "../observability/http-metrics.ts";
import type { ApiQueue } from "../queue-port.ts";
import type { VersionHub } from "../sse/version-hub.ts";

export interface FallbackState {
  mode: "primary" | "fallback";
  since: number | null;
  lastProbeAt: number | null;
}

export interface RouteDeps {
  db: Db;
  queue: ApiQueue;
  hub: VersionHub;
  metrics: ApiMetrics;
  limits: { maxRequestBytes: number; maxResultBytes: number };
  sse: { heartbeatMs: number };
  fleetWindowMinutes: number;
  adminKey: string;
  /** The summarizer outage breaker, when the deployment wires one (fleet status reports it). */
  fallbackState?: () => Promise<FallbackState>;
}
