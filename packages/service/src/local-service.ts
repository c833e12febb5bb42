/**
 * The per-user local service: the single-process service on the Unix socket of its data directory,
 * started detached by the first client that needs it (see @condense/client local-service.ts) and
 * shared by every pi process and the CLI on the machine. It owns the data directory (the owner lock),
 * logs to `<dataDir>/service.log`, and stops on its own once no client has been connected and no
 * flush has been queued or running for the idle period.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import type { Socket } from "node:net";
import { localServicePaths, OWNED_EXIT_CODE } from "@condense/client";
import { processEnv, VARIABLES } from "@condense/config";
import { templateCacheDirs } from "@condense/db";
import { pino, type Logger } from "pino";
import { DataDirOwnedError } from "./data-dir-lock.ts";
import { startSingleProcessService, type SingleProcessService } from "./single-process-service.ts";

export interface LocalServiceOptions {
  dataDir: string;
  /** Stop after this long with no client connected and no flush queued or running (0: never). */
  idleMs: number;
  env?: Record<string, string | undefined>;
  logLevel?: string;
}

export interface RunningLocalService {
  service: SingleProcessService;
  logger: Logger;
  /** Resolves when the service has stopped (idle, signal, or stop()). */
  stopped: Promise<string>;
  stop(reason: string): Promise<void>;
}

export const DEFAULT_IDLE_MS = VARIABLES.CONDENSE_SERVICE_IDLE_MS.default;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

export async function runLocalService(options: LocalServiceOptions): Promise<RunningLocalService> {
  const paths = localServicePaths(options.dataDir);
  mkdirSync(paths.dataDir, { recursive: true });
  rotateLog(paths.logFile);
  const logger = pino(
    { level: options.logLevel ?? "info", base: { app: "condense-local-service", pid: process.pid } },
    pino.destination({ dest: paths.logFile, append: true, mkdir: true, sync: true }),
  );
  const adminKey = dataDirAdminKey(paths.dataDir);
  let service: SingleProcessService;
  try {
    // Owning the lock is checked inside before anything else; a socket file left by a dead owner is
    // removed only once the lock is ours (see onLocked below).
    service = await startSingleProcessService({
      dataDir: paths.dataDir,
      role: "the Condense local service",
      listen: { socketPath: paths.socket },
      adminKey,
      pgliteTemplateDir: templateCacheDirs(),
      env: { ...(options.env ?? processEnv()) },
      logger,
      beforeListen: () => {
        if (existsSync(paths.socket)) unlinkSync(paths.socket);
      },
    });
  } catch (err) {
    if (err instanceof DataDirOwnedError)
      logger.info({ owner: err.owner }, "data directory already owned; leaving it to its owner");
    else logger.fatal({ err }, "local service failed to start");
    throw err;
  }
  logger.info({ socket: paths.socket, dataDir: paths.dataDir, idleMs: options.idleMs }, "local service listening");

  const http = service.server!.httpServer;
  const open = new Set<Socket>();
  let lastActivity = Date.now();
  http.on("connection", (s: Socket) => {
    open.add(s);
    lastActivity = Date.now();
    s.once("close", () => {
      open.delete(s);
      lastActivity = Date.now();
    });
  });
  http.on("request", () => {
    lastActivity = Date.now();
  });

  let stopReason = "";
  let resolveStopped!: (reason: string) => void;
  const stopped = new Promise<string>((r) => {
    resolveStopped = r;
  });
  let stopping: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      stopReason = reason;
      clearInterval(idleTimer);
      logger.info({ reason }, "local service stopping");
      try {
        await service.close();
      } catch (err) {
        logger.error({ err }, "shutdown failed");
      }
      logger.info({ reason }, "local service stopped");
      resolveStopped(stopReason);
    })());

  const checkMs = options.idleMs > 0 ? Math.max(50, Math.min(5_000, Math.floor(options.idleMs / 4))) : 0;
  const idleTimer = setInterval(() => {
    if (open.size > 0 || Date.now() - lastActivity < options.idleMs) return;
    service.runtime.queue.counts().then(
      (c) => {
        if (c.waiting + c.active > 0) {
          lastActivity = Date.now();
          return;
        }
        if (open.size === 0 && Date.now() - lastActivity >= options.idleMs) void stop(`idle for ${options.idleMs} ms`);
      },
      () => {},
    );
  }, checkMs || 60_000);
  if (!checkMs) clearInterval(idleTimer);
  return { service, logger, stopped, stop };
}

/**
 * The admin key of a data directory's service, kept beside the API key (mode 0600) and minted on first
 * use, so the CLI's admin commands can go through whichever process owns the directory.
 */
export function dataDirAdminKey(dataDir: string): string {
  const file = localServicePaths(dataDir).adminKeyFile;
  try {
    const key = readFileSync(file, "utf8").trim();
    if (key.length >= 16) return key;
  } catch {
    /* mint one */
  }
  const key = `cdadm_${randomBytes(24).toString("base64url")}`;
  // Called before the service starts (and creates the directory) on a fresh data directory.
  mkdirSync(localServicePaths(dataDir).dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}

function rotateLog(file: string): void {
  try {
    if (statSync(file).size > LOG_ROTATE_BYTES) renameSync(file, `${file}.1`);
  } catch {
    /* no log yet */
  }
}

export { OWNED_EXIT_CODE };
