/**
 * The embedded service: one process holds PGlite in a data directory, the in-process queue, the
 * worker and the API app. The client reaches the app through `app.fetch` instead of a socket, so it
 * exercises exactly the HTTP contract (auth, validation, SSE) a fleet client does. This lives in its own
 * package because it composes apps (api, worker), which packages/client must not depend on.
 *
 * Summarizer configuration passes through the worker's own env variables
 * (CONDENSE_SUMMARIZER_MODEL / _FALLBACK_MODEL / _CONFIG), or `summarizerEnv` here.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { apiQueueFrom, newApp } from "@condense/api";
import type { CondenseHost } from "@condense/client";
import { createRuntime, loadWorkerConfig, type Runtime } from "@condense/worker";
import { localApiKey } from "./local-api-key.ts";

export interface EmbeddedHostOptions {
  dataDir: string;
  /** Extra worker env (e.g. CONDENSE_SUMMARIZER_CONFIG); defaults to the process env's CONDENSE_* values. */
  env?: Record<string, string | undefined>;
  /** How often open SSE streams check for new versions (default 100 ms: it is a local database). */
  ssePollMs?: number;
}

export interface EmbeddedHost extends CondenseHost {
  runtime: Runtime;
  app: ReturnType<typeof newApp>;
  dataDir: string;
}

export const EMBEDDED_ORIGIN = "http://condense.embedded";

export async function startEmbeddedHost(options: EmbeddedHostOptions): Promise<EmbeddedHost> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const env = options.env ?? process.env;
  const config = loadWorkerConfig({
    CONDENSE_SUMMARIZER_MODEL: env.CONDENSE_SUMMARIZER_MODEL,
    CONDENSE_SUMMARIZER_FALLBACK_MODEL: env.CONDENSE_SUMMARIZER_FALLBACK_MODEL,
    CONDENSE_SUMMARIZER_CONFIG: env.CONDENSE_SUMMARIZER_CONFIG,
    WORKER_CONCURRENCY: env.WORKER_CONCURRENCY ?? "2",
    LOG_LEVEL: env.CONDENSE_LOG_LEVEL ?? "silent",
    CONDENSE_DATA_DIR: join(dataDir, "pglite"),
    WORKER_SHUTDOWN_GRACE_MS: env.WORKER_SHUTDOWN_GRACE_MS ?? "5000",
  });
  const runtime = await createRuntime(config);
  try {
    await runtime.start();
    const apiKey = await localApiKey(runtime.db.db, dataDir);
    const app = newApp({
      db: runtime.db.db,
      queue: apiQueueFrom(runtime.queue),
      config: { ssePollMs: options.ssePollMs ?? 100, sseHeartbeatMs: 15_000, rateLimit: { perSecond: 0, burst: 1 } },
      rateLimiter: null,
    });
    let closed: Promise<void> | undefined;
    return {
      baseUrl: EMBEDDED_ORIGIN,
      apiKey,
      dataDir,
      runtime,
      app,
      fetch: (input, init) => Promise.resolve(app.fetch(input instanceof Request ? input : new Request(input, init))),
      close: () => (closed ??= (async () => { await runtime.close(); })()),
    };
  } catch (err) {
    await runtime.close().catch(() => {});
    throw err;
  }
}
