/**
 * What a job is, independent of any queue: its name, the zod schema of its payload, and its retry,
 * backoff, timeout, deduplication and retention policy. Adapters read only these fields.
 */
import type { z } from "zod";

export interface BackoffPolicy {
  type: "fixed" | "exponential";
  /** Base delay: fixed = every retry waits this long; exponential = delay * 2^(retry-1). */
  delayMs: number;
  /** 0..1: each delay is reduced by up to this fraction at random, so retries of a fleet spread out. */
  jitter?: number;
}

export interface DeduplicationPolicy<P> {
  /**
   * "keep-last-if-active": at most one job per key runs at a time; while one is active, at most one
   * follow-up waits, and a newer enqueue replaces its payload (latest wins). A job that is waiting
   * (not yet started, or waiting for a retry) has its payload replaced too.
   */
  mode: "keep-last-if-active";
  key(payload: P): string;
}

export interface RetentionPolicy {
  /** Completed jobs kept this long / at most this many (BullMQ removeOnComplete). */
  completedAgeSec: number;
  completedCount: number;
  /** Failed jobs kept this long (BullMQ removeOnFail). */
  failedAgeSec: number;
}

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  /** Total attempts including the first. */
  attempts: number;
  backoff: BackoffPolicy;
  /** The handler's signal aborts after this long and the attempt fails with JobTimeoutError. */
  timeoutMs: number;
  deduplication?: DeduplicationPolicy<z.output<S>>;
  retention: RetentionPolicy;
}

export type JobCatalog = Record<string, JobDefinition>;
export type JobName<C extends JobCatalog> = keyof C & string;
export type PayloadOf<C extends JobCatalog, N extends JobName<C>> = z.output<C[N]["payload"]>;
export type PayloadInput<C extends JobCatalog, N extends JobName<C>> = z.input<C[N]["payload"]>;

/** Identity helper that keeps the payload type attached to the deduplication key function. */
export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelay(policy: BackoffPolicy, retry: number, random: () => number = Math.random): number {
  const base = policy.type === "fixed" ? policy.delayMs : policy.delayMs * 2 ** Math.max(0, retry - 1);
  const jitter = Math.min(Math.max(policy.jitter ?? 0, 0), 1);
  return Math.round(base * (1 - jitter * random()));
}
