/**
 * The BullMQ adapter (fleet mode). Deduplicated jobs use BullMQ's keep-last-if-active mode
 * (`deduplication: {id, keepLastIfActive: true}`): one active job per key, one stored follow-up that
 * the latest enqueue overwrites, created when the active job finishes. BullMQ ignores an enqueue
 * whose key holder is merely waiting (or delayed for a retry); to keep "latest payload wins" there
 * too, the adapter then writes the new payload into that waiting job, and re-enqueues if the job
 * started meanwhile (so the payload becomes the follow-up instead of being lost).
 */
import { randomUUID } from "node:crypto";
import type { Job, JobsOptions, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { JobCatalog, JobDefinition } from "./job-definition.ts";
import {
  NonRetryableJobError,
  QueueClosedError,
  type CloseResult,
  type EnqueueResult,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
  type JobRun,
  type QueueCounts,
} from "./job-queue.ts";
import { producerConnection, redisClass, WORKER_CONNECTION, waitReady } from "./redis-connections.ts";
import { runAttempt } from "./run-attempt.ts";

export interface BullmqQueueOptions<C extends JobCatalog> extends JobQueueOptions<C> {
  redisUrl: string;
  /** BullMQ key prefix (never the ioredis keyPrefix option). Default "condense". */
  prefix?: string;
  queueName?: string;
  /** Worker lock duration; a job whose lock is not renewed for this long is re-delivered. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export interface BullmqJobQueue<C extends JobCatalog> extends JobQueue<C> {
  /** The underlying BullMQ Queue, for `exportPrometheusMetrics()` and similar operator reads. */
  readonly queue: Queue;
}

const WAITING_STATES = new Set(["waiting", "delayed", "prioritized", "paused", "waiting-children"]);

export async function createBullmqQueue<C extends JobCatalog>(
  options: BullmqQueueOptions<C>,
): Promise<BullmqJobQueue<C>> {
  const { catalog } = options;
  const prefix = options.prefix ?? "condense";
  const queueName = options.queueName ?? "condense-jobs";
  // BullMQ (and ioredis) load only when a queue on Redis is made: the embedded default never loads them.
  const bull = await import("bullmq");
  const RedisClient = await redisClass();
  const producer = await producerConnection(options.redisUrl);
  producer.on("error", () => {}); // surfaced through failing commands; avoid unhandled "error" events
  try {
    await waitReady(producer);
  } catch (err) {
    producer.disconnect();
    throw err;
  }
  const queue = new bull.Queue(queueName, { connection: producer, prefix });
  queue.on("error", () => {});
  await queue.waitUntilReady();

  let worker: Worker | undefined;
  let workerConn: Redis | undefined;
  let closing = false;
  /** Jobs this worker is running right now (not the queue-wide active count). */
  let running = 0;
  const closeCtrl = new AbortController();

  function definition(name: string): JobDefinition {
    const def = catalog[name];
    if (!def) throw new Error(`unknown job ${name}`);
    return def;
  }

  function jobOptions(def: JobDefinition, dedupKey: string | undefined): JobsOptions {
    return {
      jobId: `${def.name}-${randomUUID()}`,
      attempts: def.attempts,
      backoff: {
        type: def.backoff.type,
        delay: def.backoff.delayMs,
        ...(def.backoff.jitter ? { jitter: def.backoff.jitter } : {}),
      },
      removeOnComplete: { age: def.retention.completedAgeSec, count: def.retention.completedCount },
      removeOnFail: { age: def.retention.failedAgeSec },
      ...(dedupKey !== undefined ? { deduplication: { id: dedupKey, keepLastIfActive: true } } : {}),
    };
  }

  async function enqueueDeduplicated(def: JobDefinition, payload: unknown, dedupKey: string): Promise<EnqueueResult> {
    for (let round = 0; round < 5; round++) {
      const opts = jobOptions(def, dedupKey);
      const job = await queue.add(def.name, payload, opts);
      if (job.id === opts.jobId) return { id: job.id!, status: "queued" };
      const holderId = job.id!;
      // Did BullMQ store our payload as the holder's follow-up? Its stored job id is ours if so.
      const storedNext = await producer.hget(queue.toKey(`dn:${dedupKey}`), "jid");
      if (storedNext === opts.jobId) return { id: opts.jobId!, status: "follow-up" };
      const state = await queue.getJobState(holderId);
      if (WAITING_STATES.has(state)) {
        const holder = await queue.getJob(holderId);
        if (holder) {
          await holder.updateData(payload);
          // Still waiting after the write: the run that starts later reads our payload.
          if (WAITING_STATES.has(await queue.getJobState(holderId))) return { id: holderId, status: "replaced" };
        }
      }
      // The holder started (or finished) in between: enqueue again; now it becomes the follow-up or a new job.
    }
    throw new Error(`could not enqueue ${def.name} for ${dedupKey}: the key's job kept changing state`);
  }

  return {
    kind: "bullmq",
    queue,
    async enqueue(name, input) {
      if (closing) throw new QueueClosedError();
      const def = definition(name);
      const payload = def.payload.parse(input);
      const dedupKey = def.deduplication?.key(payload);
      if (dedupKey === undefined) {
        const opts = jobOptions(def, undefined);
        const job = await queue.add(def.name, payload, opts);
        return { id: job.id!, status: "queued" };
      }
      return enqueueDeduplicated(def, payload, dedupKey);
    },

    process(handler: JobHandler<C>, opts) {
      if (worker) throw new Error("process() was already called on this queue");
      workerConn = new RedisClient(options.redisUrl, WORKER_CONNECTION);
      workerConn.on("error", () => {});
      worker = new bull.Worker(
        queueName,
        async (job: Job) => {
          const def = definition(job.name);
          const startedAt = Date.now();
          const attempt = job.attemptsMade + 1;
          const parsed = def.payload.safeParse(job.data);
          if (!parsed.success)
            throw new bull.UnrecoverableError(`invalid ${job.name} payload: ${parsed.error.message}`);
          running++;
          try {
            return await runAttempt(job.name, def.timeoutMs, closeCtrl.signal, (signal) =>
              handler({
                id: job.id!,
                name: job.name,
                payload: parsed.data,
                attempt,
                maxAttempts: def.attempts,
                enqueuedAt: job.timestamp,
                startedAt,
                signal,
              } as JobRun<C>),
            );
          } catch (err) {
            if (err instanceof NonRetryableJobError) throw new bull.UnrecoverableError(err.message);
            throw err;
          } finally {
            running--;
          }
        },
        {
          connection: workerConn,
          prefix,
          concurrency: Math.max(1, Math.floor(opts.concurrency)),
          ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
          ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
        },
      );
      worker.on("error", () => {});
      const report = (type: "completed" | "retrying" | "failed", job: Job, error?: Error) => {
        try {
          options.onJobEvent?.({
            type,
            id: job.id ?? "",
            name: job.name,
            attempt: job.attemptsMade,
            durationMs: (job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now()),
            ...(error ? { error } : {}),
          });
        } catch {
          // An observer must never break the worker.
        }
      };
      worker.on("completed", (job) => report("completed", job));
      worker.on("failed", (job, err) => {
        if (!job) return;
        const final = job.finishedOn !== undefined && job.finishedOn !== null;
        report(final ? "failed" : "retrying", job, err);
      });
    },

    async counts(): Promise<QueueCounts> {
      const c = await queue.getJobCounts(
        "waiting",
        "active",
        "delayed",
        "failed",
        "completed",
        "prioritized",
        "waiting-children",
      );
      return {
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c["waiting-children"] ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
        completed: c.completed ?? 0,
      };
    },

    async close(graceMs = 30_000): Promise<CloseResult> {
      closing = true;
      let result: CloseResult = { timedOut: false, abandoned: 0 };
      if (worker) {
        const w = worker;
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), graceMs);
        });
        const outcome = await Promise.race([w.close().then(() => "done" as const), graceOver]);
        clearTimeout(timer);
        if (outcome === "timeout") {
          const abandoned = running;
          // Abort handlers, then force-close: their jobs stay "active" until the stall check re-delivers them.
          closeCtrl.abort(new Error("queue closed: grace period over"));
          await w.close(true);
          result = { timedOut: true, abandoned };
        }
      }
      await queue.close();
      if (workerConn) await workerConn.quit().catch(() => workerConn?.disconnect());
      await producer.quit().catch(() => producer.disconnect());
      return result;
    },
  };
}
