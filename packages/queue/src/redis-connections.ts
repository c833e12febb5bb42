/**
 * The two kinds of Redis connection BullMQ needs. Producers (the API) fail fast: no offline queue,
 * one retry per command, so a Redis outage turns into an immediate error the API can answer with
 * 503 instead of a request that hangs. Workers block on Redis and must retry forever
 * (maxRetriesPerRequest: null, which BullMQ requires for workers).
 */
import { Redis, type RedisOptions } from "ioredis";

export function producerConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5000, ...extra });
}

export function workerConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
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
