/** What every route file receives: the database, the queue port and the shared in-process services. */
import type { SummarizerHandOffBody } from "@condense/contract";
import type { Db } from "@condense/db";
import type { ApiMetrics } from "../observability/http-metrics.ts";
import type { ApiQueue } from "../queue-port.ts";
import type { VersionHub } from "../sse/version-hub.ts";

export interface FallbackState {
  mode: "primary" | "fallback";
  since: number | null;
  lastProbeAt: number | null;
}

/**
 * Where handed-off summarizer models go (the summarizer package's in-memory registry; the composition
 * root passes the same instance to the worker runtime). Only what the routes need.
 */
export interface SummarizerHandOffPort {
  put(tenantId: string, sessionId: string, handOff: SummarizerHandOffBody): unknown;
  get(tenantId: string, sessionId: string): unknown;
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
  /** Drops this process's cached authentication of a key (revoked or rotated) so it gets 401 at once. */
  forgetKey?: (keyId: string) => void;
  /** The summarizer outage breaker, when the deployment wires one (fleet status reports it). */
  fallbackState?: () => Promise<FallbackState>;
  /** Absent: the service takes no handed-off models (PUT .../summarizer answers 409). */
  summarizerHandOffs?: SummarizerHandOffPort;
}
