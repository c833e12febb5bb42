/**
 * The client side of the per-user local service: reach it over the Unix socket in the data directory,
 * and start it (detached, so it outlives this process) when nothing answers there. Every request goes
 * through `fetch` or `request` below (JSON requests take the plain `request`: no web Request/Response
 * objects on the agent's process), so a service that died (even SIGKILL) is restarted by the next request that
 * needs it; the outbox's retries cover the moments in between. Two processes starting it at once is
 * harmless: the service takes the data directory's owner lock, the loser exits, both clients find the
 * winner on the socket.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { processEnv } from "@condense/config";
import type { CondenseHost } from "./client.ts";
import { localServicePaths, type LocalServicePaths } from "./local-service-paths.ts";
import { ownerIsAlive, readOwnerLock } from "./owner-lock.ts";
import { isNoListener, socketFetch } from "./socket-fetch.ts";
import { socketAgent, socketRequest } from "./socket-request.ts";
import type { FetchLike, PlainRequest } from "./transport.ts";

export interface LocalServiceOptions {
  dataDir: string;
  /**
   * How to start the service when none answers: the program and its arguments (the data directory is
   * passed in CONDENSE_DATA_DIR). Without it the client only connects and never starts one.
   */
  command?: { file: string; args: string[] };
  /** Env for a started service (default: this process's env). */
  env?: Record<string, string | undefined>;
  /** Longest wait for a started service to answer (default 30 s: a first start migrates PGlite). */
  startTimeoutMs?: number;
  /**
   * Waited for before this client starts a service: starting one is a burst of CPU on the host (a new
   * node process, PGlite, migrations), which a host whose agent is busy (pi building its first request)
   * holds until its agent waits on the model. It must settle soon whatever happens (the pi extension's
   * resolves at the next request or after a short limit). Default: start at once.
   */
  beforeStart?: () => Promise<void>;
}

export const LOCAL_ORIGIN = "http://condense.local";
/** The service's exit code when another live process owns the data directory (EX_TEMPFAIL). */
export const OWNED_EXIT_CODE = 75;

export interface LocalServiceHost extends CondenseHost {
  paths: LocalServicePaths;
  /** Connect, starting the service if needed; resolves once it answers /healthz. */
  ensure(): Promise<void>;
  /** The admin key the running service accepts (admin commands go through the service). */
  adminKey(): string | null;
}

export function localServiceHost(options: LocalServiceOptions): LocalServiceHost {
  const paths = localServicePaths(options.dataDir);
  // One pool of kept-alive connections for both ways of asking.
  const agent = socketAgent();
  const raw = socketFetch(paths.socket, agent);
  const rawRequest = socketRequest(paths.socket, agent);
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  let ensuring: Promise<void> | null = null;
  let apiKey: string | null = null;

  const readKey = (file: string): string | null => {
    try {
      return readFileSync(file, "utf8").trim() || null;
    } catch {
      return null;
    }
  };

  async function healthy(): Promise<boolean> {
    try {
      const res = await raw(`${LOCAL_ORIGIN}/healthz`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel().catch(() => {});
      return res.ok;
    } catch {
      return false;
    }
  }

  function start(): { exited: () => number | null } {
    if (!options.command)
      throw new Error(
        `no Condense service answers on ${paths.socket}, and this client was given no way to start one; start it with: condense service start`,
      );
    mkdirSync(paths.dataDir, { recursive: true });
    const env = { ...(options.env ?? processEnv()), CONDENSE_DATA_DIR: paths.dataDir };
    // Detached in its own process group with no stdio tied to ours: it must outlive this process and
    // never write into the agent's terminal. It logs to its own file.
    const child = spawn(options.command.file, options.command.args, {
      detached: true,
      stdio: "ignore",
      env,
      cwd: paths.dataDir,
    });
    let code: number | null = null;
    child.on("exit", (c, sig) => {
      code = c ?? (sig ? 128 : 1);
    });
    child.on("error", () => {
      code = 127;
    });
    child.unref();
    return { exited: () => code };
  }

  async function ensureOnce(): Promise<void> {
    if (await healthy()) {
      apiKey = readKey(paths.apiKeyFile);
      return;
    }
    if (options.beforeStart && !liveOwner(paths.lockFile)) await options.beforeStart();
    // A live process holding the owner lock is a service still starting (PGlite, migrations): wait for
    // it to answer instead of starting a second one that would only find the directory owned and exit.
    let child = liveOwner(paths.lockFile) ? null : start();
    const deadline = Date.now() + startTimeoutMs;
    let wait = 25;
    for (;;) {
      // Unref'd: a client process that is done (pi exiting) never waits for a service to come up.
      await new Promise((r) => setTimeout(r, wait).unref());
      wait = Math.min(wait * 2, 250);
      if (await healthy()) {
        apiKey = readKey(paths.apiKeyFile);
        return;
      }
      if (child === null) {
        // The starter we waited for died before it answered: start one ourselves.
        if (!liveOwner(paths.lockFile)) child = start();
        if (Date.now() > deadline)
          throw new Error(
            `the Condense service did not answer on ${paths.socket} within ${startTimeoutMs} ms; see ${paths.logFile}${logTail(paths.logFile)}`,
          );
        continue;
      }
      const code = child.exited();
      // A loser of a start race exits with OWNED_EXIT_CODE at once (the directory is owned): keep
      // waiting for the winner. Any other exit means the start failed: say why from the service's log.
      if (code !== null && code !== OWNED_EXIT_CODE)
        throw new Error(
          `the Condense service did not start (exit ${code}); see ${paths.logFile}${logTail(paths.logFile)}`,
        );
      if (Date.now() > deadline)
        throw new Error(
          `the Condense service did not answer on ${paths.socket} within ${startTimeoutMs} ms; see ${paths.logFile}${logTail(paths.logFile)}`,
        );
    }
  }

  const ensure = (): Promise<void> =>
    (ensuring ??= ensureOnce().finally(() => {
      ensuring = null;
    }));

  const withKey = (init: RequestInit | undefined): RequestInit => {
    const headers = new Headers(init?.headers);
    if (apiKey && !headers.has("authorization")) headers.set("authorization", `Bearer ${apiKey}`);
    return { ...init, headers };
  };

  const fetch: FetchLike = async (input, init) => {
    const signal = init?.signal ?? undefined;
    if (apiKey === null) await untilAborted(ensure(), signal);
    try {
      return await raw(input, withKey(init));
    } catch (err) {
      if (!isNoListener(err) || signal?.aborted) throw err;
      // The service is gone (stopped when idle, or crashed): start it again and retry once.
      await untilAborted(ensure(), signal);
      return raw(input, withKey(init));
    }
  };

  const request: PlainRequest = async (req, signal) => {
    if (apiKey === null) await untilAborted(ensure(), signal);
    const keyed = () =>
      apiKey && !("authorization" in req.headers)
        ? { ...req, headers: { ...req.headers, authorization: `Bearer ${apiKey}` } }
        : req;
    try {
      return await rawRequest(keyed(), signal);
    } catch (err) {
      if (!isNoListener(err) || signal?.aborted) throw err;
      // The service is gone (stopped when idle, or crashed): start it again and retry once.
      await untilAborted(ensure(), signal);
      return rawRequest(keyed(), signal);
    }
  };

  return {
    baseUrl: LOCAL_ORIGIN,
    // The key travels in `fetch` (it is read once the service is up, and again after a restart).
    apiKey: "",
    fetch,
    request,
    paths,
    ensure,
    adminKey: () => readKey(paths.adminKeyFile),
    // The service is shared by every client on this machine; closing a client never stops it.
    close: async () => {},
    // Once a service has answered this process it is worth waiting for (a restart after a crash is quick);
    // before that, it is a first start, which can take seconds.
    reachable: () => apiKey !== null,
  };
}

/** A request waiting for the service gives up when its own signal aborts (a closing client). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Whether the data directory's owner lock names a process that is still running (the pid not reused). */
function liveOwner(lockFile: string): boolean {
  const owner = readOwnerLock(lockFile);
  return owner !== null && ownerIsAlive(owner);
}

function logTail(file: string): string {
  try {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").slice(-5).join("\n");
    return lines ? `; last log lines:\n${lines}` : "";
  } catch {
    return "";
  }
}
