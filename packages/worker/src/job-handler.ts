/**
 * The worker's one job handler: routes "flush-session" and "compress-chains" to their processors,
 * and writes one wide log line and the Prometheus series per run. The same handler runs behind the
 * BullMQ adapter (fleet) and the in-process adapter (embedded). A `NotFoundError` from the database
 * (the session or the flush request is gone: deleted, or its tenant was) ends the job at once as a
 * `NonRetryableJobError`, which both adapters honour: retrying cannot bring the row back.
 */
import { errorCodeOf } from "@condense/contract/vocabulary";
import { normalizeSettings } from "@condense/core";
import { getFlushRequest, NotFoundError, type Db } from "@condense/db";
import { NonRetryableJobError, routeJobs, type CondenseJobs, type JobHandler } from "@condense/queue";
import type { Summarizer } from "@condense/summarizer";
import type { Logger } from "pino";
import { runChainStage } from "./chains/chain-stage.ts";
import type { FlushHooks } from "./crash-hooks.ts";
import type { FlushTimings } from "./flush/flush-timings.ts";
import { runFlush, type FlushJob, type FlushRunResult } from "./flush/run-flush.ts";
import type { SelectSummarizer } from "./summarizer-selection.ts";
import type { WorkerMetrics } from "./worker-metrics.ts";

/** Start and end of every flush run, for tests that check per-session serialization. */
export interface FlushTrace {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  workerId: string;
  startedAt: number;
  endedAt: number;
  status: string;
  /** The queue's enqueue time of the job (epoch ms). */
  enqueuedAt?: number;
  /** High-resolution epoch times (ms) of the handler's start and end, and the run's stage times. */
  startedAtHr?: number;
  endedAtHr?: number;
  timings?: FlushTimings;
}

export interface JobHandlerDeps {
  db: Db;
  summarizer: Summarizer;
  /** Per-session summarizer choice (summarizer-selection.ts); without it every session uses `summarizer`. */
  selectSummarizer?: SelectSummarizer;
  workerId: string;
  logger: Logger;
  metrics?: WorkerMetrics;
  batchConcurrency?: number;
  hooks?: FlushHooks;
  onFlushTrace?: (trace: FlushTrace) => void;
}

export function createJobHandler(deps: JobHandlerDeps): JobHandler<CondenseJobs> {
  const flushDeps = {
    db: deps.db,
    summarizer: deps.summarizer,
    workerId: deps.workerId,
    ...(deps.selectSummarizer ? { selectSummarizer: deps.selectSummarizer } : {}),
    ...(deps.batchConcurrency ? { batchConcurrency: deps.batchConcurrency } : {}),
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
  };
  const route = routeJobs<CondenseJobs>({
    "flush-session": async (job) => {
      const startedAt = Date.now();
      const t0 = performance.now();
      const p = job.payload;
      const fields = {
        job: job.id,
        tenant: p.tenantId,
        session: p.sessionId,
        flushRequest: p.flushRequestId,
        attempt: job.attempt,
        worker: deps.workerId,
      };
      deps.metrics?.queueWaitSeconds.observe(Math.max(0, job.startedAt - job.enqueuedAt) / 1000);
      let status = "error";
      let timings: FlushTimings | undefined;
      try {
        const result: FlushRunResult = await runFlush(flushDeps, job as FlushJob);
        status = result.status;
        timings = result.timings;
        deps.metrics?.flushes.inc({ outcome: result.outcome ?? "none", status: result.status });
        if (result.chains?.compressed) deps.metrics?.chainsCompressed.inc(result.chains.compressed);
        deps.logger.info(
          {
            ...fields,
            status: result.status,
            outcome: result.outcome,
            version: result.version,
            pending: result.pending,
            chains: result.chains,
            durationMs: Math.round(performance.now() - t0),
            stagesMs: roundStages(result.timings),
          },
          "flush",
        );
        return { status: result.status, outcome: result.outcome, version: result.version };
      } catch (err) {
        // The error vocabulary's code (contract): the same strings as the API's responses and the client's errors.
        const code = job.signal.aborted ? "cancelled" : errorCodeOf(err);
        deps.metrics?.flushFailures.inc({ code });
        deps.logger.warn({ ...fields, err, code, durationMs: Math.round(performance.now() - t0) }, "flush failed");
        throw err;
      } finally {
        deps.metrics?.flushSeconds.observe({ status }, (performance.now() - t0) / 1000);
        deps.onFlushTrace?.({
          tenantId: p.tenantId,
          sessionId: p.sessionId,
          flushRequestId: p.flushRequestId,
          workerId: deps.workerId,
          startedAt,
          endedAt: Date.now(),
          status,
          enqueuedAt: job.enqueuedAt,
          startedAtHr: performance.timeOrigin + t0,
          endedAtHr: performance.timeOrigin + performance.now(),
          ...(timings ? { timings } : {}),
        });
      }
    },
    "compress-chains": async (job) => {
      const p = job.payload;
      const request = await getFlushRequest(deps.db, p.tenantId, p.flushRequestId);
      if (!request || request.sessionId !== p.sessionId)
        throw new NonRetryableJobError(`flush request ${p.flushRequestId} not found`, { code: "not_found" });
      if (request.status !== "committed") return { status: "not-committed" };
      const settings = normalizeSettings(request.settings);
      const summarizer = deps.selectSummarizer
        ? deps.selectSummarizer({ tenantId: p.tenantId, sessionId: p.sessionId }, settings).summarizer
        : deps.summarizer;
      const result = await runChainStage(
        { db: deps.db, summarizer, ...(deps.hooks ? { hooks: deps.hooks } : {}) },
        request,
        settings,
        job.signal,
      );
      if (result.compressed) deps.metrics?.chainsCompressed.inc(result.compressed);
      deps.logger.info(
        { job: job.id, tenant: p.tenantId, session: p.sessionId, flushRequest: p.flushRequestId, chains: result },
        "compress-chains",
      );
      return result;
    },
  });
  return async (job) => {
    try {
      return await route(job);
    } catch (err) {
      if (err instanceof NotFoundError) throw new NonRetryableJobError(err.message, { cause: err });
      throw err;
    }
  };
}

/** Stage times rounded to 0.1 ms for the log line. */
function roundStages(t: FlushTimings | undefined): Record<string, number> | undefined {
  if (!t) return undefined;
  return Object.fromEntries(Object.entries(t.stages).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}
