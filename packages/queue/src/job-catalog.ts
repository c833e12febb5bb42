/**
 * Condense's jobs: the payloads are the contract's (@condense/contract, jobs/session-jobs.schema.ts);
 * this catalog adds each job's retry, timeout, deduplication and retention policy.
 */
import { CompressChainsPayload, FlushSessionPayload } from "@condense/contract";
import { defineJob } from "./job-definition.ts";

const retention = { completedAgeSec: 3600, completedCount: 1000, failedAgeSec: 7 * 24 * 3600 };

export const condenseJobs = {
  "flush-session": defineJob({
    name: "flush-session",
    payload: FlushSessionPayload,
    attempts: 5,
    backoff: { type: "exponential", delayMs: 2000, jitter: 0.3 },
    // Summarizer calls have their own 180 s ceiling (CAP-SUM-6); batches run in parallel.
    timeoutMs: 10 * 60_000,
    deduplication: { mode: "keep-last-if-active", key: (p) => `flush-session/${p.tenantId}/${p.sessionId}` },
    retention,
  }),
  "compress-chains": defineJob({
    name: "compress-chains",
    payload: CompressChainsPayload,
    attempts: 3,
    backoff: { type: "exponential", delayMs: 5000, jitter: 0.3 },
    timeoutMs: 10 * 60_000,
    // Shares the session key space with nothing: chain commits are idempotent per flush request.
    deduplication: { mode: "keep-last-if-active", key: (p) => `compress-chains/${p.tenantId}/${p.sessionId}` },
    retention,
  }),
};

export type CondenseJobs = typeof condenseJobs;
