/**
 * Re-enqueues flush requests nobody finished. The durable record of what to flush is the
 * flush_requests table; the queue only carries pointers into it. A job can vanish (an in-process
 * queue dies with its process; a Redis failover without persistence; BullMQ fails a job that stalled
 * too often), and then its session's newest queued request is re-enqueued after a delay; likewise a
 * committed flush whose chain stage never finished gets a "compress-chains" job. Doing it
 * from several workers at once is harmless: enqueue is deduplicated per session and commits are
 * idempotent per request.
 */
import { listStaleQueuedFlushRequests, listUnfinishedChainStages, type Db } from "@condense/db";
import type { CondenseJobs, JobQueue } from "@condense/queue";
import type { Logger } from "pino";

export interface RequeueSweeper {
  sweep(olderThan?: Date): Promise<number>;
  stop(): void;
}

export function startRequeueSweeper(opts: {
  db: Db;
  queue: JobQueue<CondenseJobs>;
  logger: Logger;
  afterMs: number;
  intervalMs: number;
}): RequeueSweeper {
  let running = false;
  const sweep = async (olderThan = new Date(Date.now() - opts.afterMs)) => {
    if (running) return 0;
    running = true;
    try {
      const stale = await listStaleQueuedFlushRequests(opts.db, { olderThan });
      for (const r of stale) {
        await opts.queue.enqueue("flush-session", {
          tenantId: r.tenantId,
          sessionId: r.sessionId,
          flushRequestId: r.id,
          cursor: r.cursor,
        });
      }
      const chainStages = await listUnfinishedChainStages(opts.db, { olderThan });
      for (const r of chainStages) {
        await opts.queue.enqueue("compress-chains", {
          tenantId: r.tenantId,
          sessionId: r.sessionId,
          flushRequestId: r.id,
        });
      }
      if (stale.length + chainStages.length > 0)
        opts.logger.info({ requeued: stale.length, chainStages: chainStages.length }, "re-enqueued unfinished work");
      return stale.length + chainStages.length;
    } catch (err) {
      opts.logger.warn({ err }, "requeue sweep failed");
      return 0;
    } finally {
      running = false;
    }
  };
  const timer = opts.afterMs > 0 ? setInterval(() => void sweep(), opts.intervalMs) : undefined;
  timer?.unref?.();
  return {
    sweep,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
