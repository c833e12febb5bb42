/**
 * The two kinds of Redis connection BullMQ needs. Producers (the API) fail fast: no offline queue,
 * one retry per command, so a Redis outage turns into an immediate error the API can answer with
 * 503 instead of a request that hangs. Workers block on Redis and must retry forever
 * (maxRetriesPerRequest: null, which BullMQ requires for workers).
 * ioredis is loaded on the first connection: a process on the embedded default never loads it.
 */
import type { Redis, RedisOptions } from "ioredis";

/** A worker's (and a subscriber's) connection options: blocking commands, retried forever. */
export const WORKER_CONNECTION: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };

/** The ioredis client class, loaded on first use. */
export async function redisClass(): Promise<typeof Redis> {
  return (await import("ioredis")).Redis;
}

export async function producerConnection(url: string, extra: RedisOptions = {}): Promise<Redis> {
  const RedisClient = await redisClass();
  return new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5000, ...extra });
}

export async function workerConnection(url: string, extra: RedisOptions = {}): Promise<Redis> {
  const RedisClient = await redisClass();
  return new RedisClient(url, { ...WORKER_CONNECTION, ...extra });
}

/** With the offline queue off, commands before "ready" fail; wait for it (or fail after timeoutMs). */
export async function waitReady(conn: Redis, timeoutMs = 5000): Promise<void> {
  if (conn.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      clearTimeout(timer);
      conn.off("ready", onReady);
      conn.off("error", onError);
    };
    conn.once("ready", onReady);
    conn.once("error", onError);
  });
}
