/**
 * The single-process Condense service, composed in one place: the owner lock on the data directory,
 * PGlite in `<dataDir>/pglite` (or a Postgres DATABASE_URL), the in-process queue, the worker runtime
 * consuming it, and the API app on top. `condense serve`, `condense replay` and the per-user local
 * service all start it here; they differ only in where the API is reachable:
 *   - `listen: { port, host }`  over TCP (condense serve);
 *   - `listen: { socketPath }` over a Unix socket (the local service);
 *   - no `listen`              in-process through `fetch` (replay), the same HTTP contract a fleet client sees.
 * One metrics registry holds the API's, the worker's and the summarizer's series, so /metrics shows all.
 */
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { apiQueueFrom, createApiMetrics, loadApiEnv, newApp, startServer, type RunningServer } from "@condense/api";
import { localServicePaths, type CondenseHost } from "@condense/client";
import { processEnv, serviceWorkerConfig } from "@condense/config";
import { type DbHandle, ensurePgliteTemplates, keepAsMigratedTemplate, seedFromTemplate } from "@condense/db";
import { asWorkerConfig, createHandOffRegistry, createRuntime, type Runtime } from "@condense/worker";
import type { Logger } from "pino";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { localApiKey } from "./local-api-key.ts";

export interface SingleProcessOptions {
  /** The data directory (its root: PGlite lives in `<dataDir>/pglite`, the key in `<dataDir>/api-key`). */
  dataDir: string;
  /** Use this database instead of the data directory's PGlite (e.g. a postgres:// URL). */
  databaseUrl?: string;
  /** An open database to use instead (replay's in-memory PGlite); the caller closes it after `close`. */
  db?: DbHandle;
  /**
   * A new data directory's PGlite is copied from a migrated template found in these cache directories
   * (@condense/db seedFromTemplate) instead of an initdb and the migrations (several seconds, near 1 GB
   * RSS). With no template yet, one is made in a child process first (ensurePgliteTemplates), so this
   * process never carries the initdb; only if that fails does this process initdb, and its new
   * database, once migrated, becomes the template (keepAsMigratedTemplate).
   */
  pgliteTemplateDir?: string | readonly string[];
  /** Who takes the owner lock, shown to a second process that is refused (default "condense"). */
  role?: string;
  /** Where the API listens; none: in-process only, through `fetch`. */
  listen?: { port: number; host: string } | { socketPath: string };
  /** Env for the worker and API (summarizer, concurrency, log level, admin key...); default this process's. */
  env?: Record<string, string | undefined>;
  /** An admin key for the admin routes (the local service mints one so admin commands go through it). */
  adminKey?: string;
  /** How often open SSE streams check for new versions (default 100 ms: a local database). */
  ssePollMs?: number;
  /** The process's logger (default: pino to stdout at CONDENSE_LOG_LEVEL). */
  logger?: Logger;
  /** Runs once the lock is held and just before the API listens (the local service clears a dead owner's socket). */
  beforeListen?: () => void;
}

export interface SingleProcessService extends CondenseHost {
  dataDir: string;
  runtime: Runtime;
  app: ReturnType<typeof newApp>;
  /** The listening server, when `listen` was given. */
  server: RunningServer | null;
  /** `http://host:port`, `unix:<path>`, or the in-process origin. */
  url: string;
  lock: DataDirLock;
}

export const IN_PROCESS_ORIGIN = "http://condense.in-process";

export async function startSingleProcessService(options: SingleProcessOptions): Promise<SingleProcessService> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const env = options.env ?? processEnv();
  const paths = localServicePaths(dataDir);
  const endpoint = options.listen
    ? "socketPath" in options.listen
      ? options.listen.socketPath
      : `http://${options.listen.host}:${options.listen.port}`
    : undefined;
  // First, before PGlite opens anything: a second process must never touch a live owner's files.
  const lock = acquireDataDirLock(dataDir, { role: options.role ?? "condense", ...(endpoint ? { endpoint } : {}) });
  const databaseUrl = options.databaseUrl ?? `pglite:${paths.pgliteDir}`;
  // Only once the lock is ours, and only for a directory with no database yet.
  const templateDir =
    options.pgliteTemplateDir && !options.databaseUrl && !options.db && !existsSync(paths.pgliteDir)
      ? options.pgliteTemplateDir
      : undefined;
  let makeTemplate = templateDir !== undefined && !seedFromTemplate(paths.pgliteDir, templateDir);
  if (templateDir !== undefined && makeTemplate) {
    const dirs = typeof templateDir === "string" ? [templateDir] : templateDir;
    const made = await ensurePgliteTemplates({ cacheDirs: dirs, kinds: ["dir"] }).catch((err: unknown) => {
      options.logger?.warn(
        { err },
        "no PGlite template could be made in a child process; this process runs the initdb",
      );
      return null;
    });
    makeTemplate = !(made?.dir && seedFromTemplate(paths.pgliteDir, templateDir));
  }
  const metrics = createApiMetrics({ defaultMetrics: true });
  // The agent's handed-off summarizer models: memory only, filled by the API, read by the worker.
  const handOffs = createHandOffRegistry();
  let runtime: Runtime | undefined;
  let server: RunningServer | null = null;
  try {
    runtime = await createRuntime(asWorkerConfig(serviceWorkerConfig(env, databaseUrl)), {
      handOffs,
      registry: metrics.registry,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.db ? { db: options.db } : {}),
    });
    // Migrated, and nothing written yet: before the worker starts and before the local key is minted.
    if (makeTemplate && templateDir !== undefined)
      await keepAsMigratedTemplate(runtime.db, templateDir).catch(() => {});
    await runtime.start();
    const apiKey = await localApiKey(runtime.db.db, dataDir);
    const ssePollMs = options.ssePollMs ?? 100;
    let app: ReturnType<typeof newApp>;
    let url = IN_PROCESS_ORIGIN;
    if (options.listen) {
      const apiEnv = loadApiEnv({
        ...env,
        DATABASE_URL: databaseUrl,
        REDIS_URL: "",
        CONDENSE_MIGRATE: "false",
        CONDENSE_SSE_POLL_MS: String(ssePollMs),
        ...(options.adminKey ? { CONDENSE_ADMIN_KEY: options.adminKey } : {}),
        ...("socketPath" in options.listen
          ? {}
          : { CONDENSE_PORT: String(options.listen.port), CONDENSE_HOST: options.listen.host }),
      });
      options.beforeListen?.();
      server = await startServer({
        env: apiEnv,
        db: runtime.db,
        jobQueue: runtime.queue,
        metrics,
        logger: runtime.logger,
        summarizerHandOffs: handOffs,
        ...("socketPath" in options.listen ? { socketPath: options.listen.socketPath } : {}),
      });
      app = server.app;
      url = server.url;
      // The real address (a port of 0 is chosen at listen time), for admin commands that go through it.
      lock.setEndpoint(url.startsWith("unix:") ? url.slice("unix:".length) : url);
    } else {
      app = newApp({
        db: runtime.db.db,
        queue: apiQueueFrom(runtime.queue),
        metrics,
        config: {
          ssePollMs,
          sseHeartbeatMs: 15_000,
          rateLimit: { perSecond: 0, burst: 1 },
          ...(options.adminKey ? { adminKey: options.adminKey } : {}),
        },
        rateLimiter: null,
        summarizerHandOffs: handOffs,
      });
    }
    const rt = runtime;
    const srv = server;
    let closed: Promise<void> | undefined;
    return {
      baseUrl: url,
      apiKey,
      dataDir,
      runtime: rt,
      app,
      server: srv,
      url,
      lock,
      fetch: (input, init) => Promise.resolve(app.fetch(input instanceof Request ? input : new Request(input, init))),
      close: () =>
        (closed ??= (async () => {
          try {
            await srv?.close();
            await rt.close();
          } finally {
            lock.release();
          }
        })()),
    };
  } catch (err) {
    await server?.close().catch(() => {});
    await runtime?.close().catch(() => {});
    lock.release();
    throw err;
  }
}
