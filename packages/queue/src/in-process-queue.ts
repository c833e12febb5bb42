/**
 * The in-process adapter (embedded mode): the same semantics as the BullMQ adapter inside one
 * process. Jobs with a deduplication key are serialized per key with keep-last-if-active: the key's
 * "holder" job is the only one that can run; an enqueue while it waits replaces its payload, an
 * enqueue while it runs becomes (or replaces) the single follow-up, promoted when the holder finishes.
 * Retries wait out the catalog's backoff as "delayed" and keep holding the key. Nothing survives a
 * restart: the durable record of what to flush is the flush_requests table.
 */
import { randomUUID } from "node:crypto";
import { backoffDelay, type JobCatalog } from "./job-definition.ts";
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
import { runAttempt } from "./run-attempt.ts";

interface Job {
  id: string;
  name: string;
  payload: unknown;
  dedupKey: string | undefined;
  attemptsMade: number;
  enqueuedAt: number;
  availableAt: number;
  state: "waiting" | "delayed" | "active" | "parked";
}

interface Slot {
  holder: Job;
  next?: Job;
}

export interface InProcessQueueOptions<C extends JobCatalog> extends JobQueueOptions<C> {
  /** Clock and randomness, injectable for tests. */
  now?: () => number;
  random?: () => number;
}

/** The in-process queue also tells when it has nothing left to run (one process sees every job). */
export interface InProcessJobQueue<C extends JobCatalog> extends JobQueue<C> {
  /**
   * Resolves once no job is waiting, running, parked as a follow-up or delayed for a retry (at once
   * when the queue is idle already): every job enqueued before the call, and any it led to, has
   * finished for good (completed or failed).
   */
  whenIdle(): Promise<void>;
}

export function createInProcessQueue<C extends JobCatalog>(options: InProcessQueueOptions<C>): InProcessJobQueue<C> {
  const { catalog } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const ready: Job[] = [];
  const delayed = new Set<Job>();
  const slots = new Map<string, Slot>();
  const active = new Map<string, Promise<void>>();
  const closeCtrl = new AbortController();
  let handler: JobHandler<C> | undefined;
  let concurrency = 1;
  let closing = false;
  let completed = 0;
  let failed = 0;
  let wakeTimer: NodeJS.Timeout | undefined;
  let idleWaiters: (() => void)[] = [];

  function idle(): boolean {
    return ready.length === 0 && active.size === 0 && delayed.size === 0 && slots.size === 0;
  }

  function wakeIdleWaiters(): void {
    if (idleWaiters.length === 0 || !idle()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  }

  function definition(name: string) {
    const def = catalog[name];
    if (!def) throw new Error(`unknown job ${name}`);
    return def;
  }

  function makeJob(name: string, payload: unknown, dedupKey: string | undefined, state: Job["state"]): Job {
    const t = now();
    return {
      id: `${name}-${randomUUID()}`,
      name,
      payload,
      dedupKey,
      attemptsMade: 0,
      enqueuedAt: t,
      availableAt: t,
      state,
    };
  }

  function schedule(): void {
    if (!handler || closing) return;
    const t = now();
    for (const job of [...delayed]) {
      if (job.availableAt <= t) {
        delayed.delete(job);
        job.state = "waiting";
        ready.push(job);
      }
    }
    while (active.size < concurrency && ready.length > 0) {
      const job = ready.shift()!;
      job.state = "active";
      active.set(job.id, run(job));
    }
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = undefined;
    if (delayed.size > 0) {
      const next = Math.min(...[...delayed].map((j) => j.availableAt));
      wakeTimer = setTimeout(schedule, Math.max(0, next - now()));
      wakeTimer.unref?.();
    }
  }

  async function run(job: Job): Promise<void> {
    const def = definition(job.name);
    const startedAt = now();
    const attempt = job.attemptsMade + 1;
    let outcome: "completed" | "retrying" | "failed" = "completed";
    let error: Error | undefined;
    try {
      const payload = def.payload.parse(job.payload);
      await runAttempt(job.name, def.timeoutMs, closeCtrl.signal, (signal) =>
        handler!({
          id: job.id,
          name: job.name,
          payload,
          attempt,
          maxAttempts: def.attempts,
          enqueuedAt: job.enqueuedAt,
          startedAt,
          signal,
        } as JobRun<C>),
      );
    } catch (err) {
      error = err instanceof Error ? err : new Error(String(err));
      const retryable =
        !(err instanceof NonRetryableJobError) && error.name !== "ZodError" && !closeCtrl.signal.aborted;
      outcome = retryable && attempt < def.attempts ? "retrying" : "failed";
    }
    active.delete(job.id);
    job.attemptsMade = attempt;
    if (outcome === "retrying") {
      job.state = "delayed";
      job.availableAt = now() + backoffDelay(def.backoff, attempt, random);
      delayed.add(job);
    } else {
      if (outcome === "completed") completed++;
      else failed++;
      release(job);
    }
    try {
      options.onJobEvent?.({
        type: outcome,
        id: job.id,
        name: job.name,
        attempt,
        durationMs: now() - startedAt,
        ...(error ? { error } : {}),
      });
    } catch {
      // An observer must never break the queue.
    }
    schedule();
    wakeIdleWaiters();
  }

  /** The holder finished for good: promote the follow-up, if any, to holder. */
  function release(job: Job): void {
    if (job.dedupKey === undefined) return;
    const slot = slots.get(job.dedupKey);
    if (!slot || slot.holder !== job) return;
    if (slot.next) {
      const next = slot.next;
      slots.set(job.dedupKey, { holder: next });
      next.state = "waiting";
      ready.push(next);
    } else {
      slots.delete(job.dedupKey);
    }
  }

  return {
    kind: "in-process",
    async enqueue(name, input) {
      if (closing) throw new QueueClosedError();
      const def = definition(name);
      const payload = def.payload.parse(input);
      const dedupKey = def.deduplication?.key(payload);
      let result: EnqueueResult;
      if (dedupKey === undefined) {
        const job = makeJob(name, payload, undefined, "waiting");
        ready.push(job);
        result = { id: job.id, status: "queued" };
      } else {
        const slot = slots.get(dedupKey);
        if (!slot) {
          const job = makeJob(name, payload, dedupKey, "waiting");
          slots.set(dedupKey, { holder: job });
          ready.push(job);
          result = { id: job.id, status: "queued" };
        } else if (slot.holder.state !== "active") {
          slot.holder.payload = payload;
          result = { id: slot.holder.id, status: "replaced" };
        } else {
          if (slot.next) {
            slot.next.payload = payload;
          } else {
            slot.next = makeJob(name, payload, dedupKey, "parked");
          }
          result = { id: slot.next.id, status: "follow-up" };
        }
      }
      schedule();
      return result;
    },
    process(h, opts) {
      if (handler) throw new Error("process() was already called on this queue");
      handler = h;
      concurrency = Math.max(1, Math.floor(opts.concurrency));
      schedule();
    },
    async counts(): Promise<QueueCounts> {
      let parked = 0;
      for (const s of slots.values()) if (s.next) parked++;
      return { waiting: ready.length + parked, active: active.size, delayed: delayed.size, failed, completed };
    },
    whenIdle() {
      if (idle()) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async close(graceMs = 30_000): Promise<CloseResult> {
      closing = true;
      // Nothing runs after a close: a waiter is released rather than left hanging.
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
      if (wakeTimer) clearTimeout(wakeTimer);
      const running = [...active.values()];
      if (running.length === 0) return { timedOut: false, abandoned: 0 };
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), graceMs);
      });
      const outcome = await Promise.race([Promise.allSettled(running).then(() => "done" as const), graceOver]);
      clearTimeout(timer);
      if (outcome === "done") return { timedOut: false, abandoned: 0 };
      const abandoned = active.size;
      closeCtrl.abort(new Error("queue closed: grace period over"));
      await Promise.allSettled([...active.values()]);
      return { timedOut: true, abandoned };
    },
  };
}
