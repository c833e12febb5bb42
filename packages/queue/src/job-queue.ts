/**
 * The one queue interface the apps use, with exactly two adapters (BullMQ, in-process). An adapter
 * is generic over a job catalog and knows nothing of any particular job.
 */
import type { ErrorCode } from "@condense/contract/vocabulary";
import type { JobCatalog, JobName, PayloadInput, PayloadOf } from "./job-definition.ts";

export type JobRun<C extends JobCatalog> = {
  [N in JobName<C>]: {
    id: string;
    name: N;
    payload: PayloadOf<C, N>;
    /** 1-based attempt number of this run. */
    attempt: number;
    maxAttempts: number;
    /**
     * Epoch ms when the job entered the queue (a replaced payload keeps the job's time; BullMQ creates
     * a follow-up when the active job finishes, in-process when it was first parked), and when this run started.
     */
    enqueuedAt: number;
    startedAt: number;
    /** Aborted on timeout and when close() gives up waiting. Pass it to every await that can take long. */
    signal: AbortSignal;
  };
}[JobName<C>];

export type JobHandler<C extends JobCatalog> = (job: JobRun<C>) => Promise<unknown>;

export interface EnqueueResult {
  id: string;
  /**
   * queued: a new job. replaced: the payload replaced that of a job of the same key that had not
   * started yet (or was waiting for a retry). follow-up: a job of the same key is running; this
   * payload is the (single) follow-up that runs after it.
   */
  status: "queued" | "replaced" | "follow-up";
}

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface CloseResult {
  /** True when active jobs were still running at the end of the grace period and were abandoned. */
  timedOut: boolean;
  abandoned: number;
}

export interface JobEvent {
  type: "completed" | "retrying" | "failed";
  id: string;
  name: string;
  attempt: number;
  durationMs: number;
  error?: Error;
}

export interface JobQueue<C extends JobCatalog> {
  readonly kind: "bullmq" | "in-process";
  enqueue<N extends JobName<C>>(name: N, payload: PayloadInput<C, N>): Promise<EnqueueResult>;
  /** Start consuming with one handler for every job name (switch on `job.name`). Call at most once. */
  process(handler: JobHandler<C>, options: { concurrency: number }): void;
  counts(): Promise<QueueCounts>;
  /** Stop taking jobs, wait for active ones up to `graceMs`, then abort them and release resources. */
  close(graceMs?: number): Promise<CloseResult>;
}

export interface JobQueueOptions<C extends JobCatalog> {
  catalog: C;
  /** Called after every run; for logs and Prometheus counters. Must not throw. */
  onJobEvent?: (event: JobEvent) => void;
}

/** Thrown by a handler to fail the job without further retries (bad payload, missing session...). */
export class NonRetryableJobError extends Error {
  /** The vocabulary's code for the failure (logs and metrics), e.g. `not_found`; `internal_error` when absent. */
  readonly code: ErrorCode;
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(message, options);
    this.name = "NonRetryableJobError";
    this.code = options?.code ?? "internal_error";
  }
}

export class JobTimeoutError extends Error {
  readonly code: ErrorCode = "timeout";
  constructor(name: string, timeoutMs: number) {
    super(`job ${name} exceeded its ${timeoutMs} ms timeout`);
    this.name = "JobTimeoutError";
  }
}

export class QueueClosedError extends Error {
  readonly code: ErrorCode = "unavailable";
  constructor() {
    super("the job queue is closed");
    this.name = "QueueClosedError";
  }
}

/** Build the single handler from one handler per job name. */
export function routeJobs<C extends JobCatalog>(
  handlers: { [N in JobName<C>]: (job: Extract<JobRun<C>, { name: N }>) => Promise<unknown> },
): JobHandler<C> {
  return (job) => (handlers[job.name as JobName<C>] as (j: JobRun<C>) => Promise<unknown>)(job);
}
