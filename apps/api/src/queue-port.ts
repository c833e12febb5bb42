/**
 * What the API needs from the job queue, and nothing more: enqueue a session's flush (the payload is
 * a cursor, never the data), read the depth and worker count for fleet status, and a readiness ping.
 * `apiQueueFrom` adapts @condense/queue's JobQueue (BullMQ or in-process) to it.
 */

export interface FlushJobRequest {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  cursor: number;
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Workers currently attached to the queue (BullMQ: connected workers; in-process: 1 when running). */
  workers: number;
}

export interface ApiQueue {
  readonly kind: string;
  enqueueFlush(job: FlushJobRequest): Promise<{ jobId: string }>;
  depth(): Promise<QueueDepth>;
  /** Resolves when the queue's backend answers; rejects otherwise. */
  ping(): Promise<void>;
}
