/** Prometheus series an operator pages on for the worker: flush outcomes, run time, queue wait, chains. */
import { Counter, Histogram, Registry } from "prom-client";

export interface WorkerMetrics {
  registry: Registry;
  flushes: Counter<"outcome" | "status">;
  /** By `code`: the error vocabulary's code (@condense/contract/vocabulary). */
  flushFailures: Counter<"code">;
  flushSeconds: Histogram<"status">;
  queueWaitSeconds: Histogram;
  chainsCompressed: Counter;
}

export function createWorkerMetrics(registry = new Registry()): WorkerMetrics {
  return {
    registry,
    flushes: new Counter({
      name: "condense_worker_flushes_total",
      help: "Flush runs by outcome and commit status",
      labelNames: ["outcome", "status"],
      registers: [registry],
    }),
    flushFailures: new Counter({
      name: "condense_worker_flush_failures_total",
      help: "Flush runs that threw (retried or failed), by error code",
      labelNames: ["code"],
      registers: [registry],
    }),
    flushSeconds: new Histogram({
      name: "condense_worker_flush_seconds",
      help: "Flush run duration",
      labelNames: ["status"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 180],
      registers: [registry],
    }),
    queueWaitSeconds: new Histogram({
      name: "condense_worker_queue_wait_seconds",
      help: "Time from enqueue to run start",
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers: [registry],
    }),
    chainsCompressed: new Counter({
      name: "condense_worker_chains_compressed_total",
      help: "Chain entries committed",
      registers: [registry],
    }),
  };
}
