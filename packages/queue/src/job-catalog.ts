/**
 * Condense's jobs. "flush-session" carries a cursor, never data: the worker loads the session's
 * pending captures up to `cursor` from Postgres, so "latest payload wins" deduplication loses nothing.
 */
import { z } from "zod";
import { defineJob } from "./job-definition.ts";

const sessionRef = {
  tenantId: z.string().min(1),
  sessionId: z.string().min(1),
  flushRequestId: z.string().uuid(),
};

export const flushSessionPayload = z.object({
  ...sessionRef,
  /** The highest capture seq the flush includes. */
  cursor: z.number().int().nonnegative(),
});
export type FlushSessionPayload = z.output<typeof flushSessionPayload>;

export const compressChainsPayload = z.object(sessionRef);
export type CompressChainsPayload = z.output<typeof compressChainsPayload>;

const retention = { completedAgeSec: 3600, completedCount: 1000, failedAgeSec: 7 * 24 * 3600 };

export const condenseJobs = {
  "flush-session": defineJob({
    name: "flush-session",
    payload: flushSessionPayload,
    attempts: 5,
    backoff: { type: "exponential", delayMs: 2000, jitter: 0.3 },
    // Summarizer calls have their own 180 s ceiling (CAP-SUM-6); batches run in parallel.
    timeoutMs: 10 * 60_000,
    deduplication: { mode: "keep-last-if-active", key: (p) => `flush-session/${p.tenantId}/${p.sessionId}` },
    retention,
  }),
  "compress-chains": defineJob({
    name: "compress-chains",
    payload: compressChainsPayload,
    attempts: 3,
    backoff: { type: "exponential", delayMs: 5000, jitter: 0.3 },
    timeoutMs: 10 * 60_000,
    // Shares the session key space with nothing: chain commits are idempotent per flush request.
    deduplication: { mode: "keep-last-if-active", key: (p) => `compress-chains/${p.tenantId}/${p.sessionId}` },
    retention,
  }),
};

export type CondenseJobs = typeof condenseJobs;
