/**
 * What the API needs from the job queue, and nothing more: enqueue a session's flush (the payload is
 * a cursor, never the data), read the depth and worker count for fleet status, and a readiness ping.
 * `apiQueueFrom` adapts @condense/queue's JobQueue (BullMQ or in-process) to it.
 */
import type { FlushSessionPayload } from "@condense/contract";
import type { BullmqJobQueue, CondenseJobs, JobQueue } from "@condense/queue";

/** The flush job's payload, as the contract defines it. */
export type FlushJobRequest = FlushSessionPayload;

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Workers attached to the queue (BullMQ: connected workers); null when the adapter cannot tell. */
  workers: number | null;
}

export interface ApiQueue {
  readonly kind: string;
  enqueueFlush(job: FlushJobRequest): Promise<{ jobId: string; status: string }>;
  depth(): Promise<QueueDepth>;
  /** Resolves when the queue's backend answers; rejects otherwise. */
  ping(): Promise<void>;
}

function isBullmq(q: JobQueue<CondenseJobs>): q is BullmqJobQueue<CondenseJobs> {
  return q.kind === "bullmq" && "queue" in q;
}

export function apiQueueFrom(q: JobQueue<CondenseJobs>): ApiQueue {
  return {
    kind: q.kind,
    async enqueueFlush(job) {
      const r = await q.enqueue("flush-session", job);
      return { jobId: r.id, status: r.status };
    },
    async depth() {
      const [c, workers] = await Promise.all([
        q.counts(),
        isBullmq(q) ? q.queue.getWorkersCount() : Promise.resolve(null),
      ]);
      return { waiting: c.waiting, active: c.active, delayed: c.delayed, failed: c.failed, workers };
    },
    async ping() {
      // counts() is a round trip to Redis for BullMQ, and trivially answers in process.
      await q.counts();
    },
  };
}
