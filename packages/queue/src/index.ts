/**
 * @condense/queue: the typed job catalog and the one `JobQueue` interface with its two adapters,
 * BullMQ (fleet mode) and in-process (embedded mode).
 */
export * from "./job-definition.ts";
export * from "./job-catalog.ts";
export * from "./job-queue.ts";
export { createInProcessQueue, type InProcessJobQueue, type InProcessQueueOptions } from "./in-process-queue.ts";
export { createBullmqQueue, type BullmqJobQueue, type BullmqQueueOptions } from "./bullmq-queue.ts";
export { producerConnection, workerConnection } from "./redis-connections.ts";
