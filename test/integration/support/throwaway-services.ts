/**
 * Services a fault suite may stop and start at will, so the shared Postgres (5432) and Redis (6379)
 * are never touched: a throwaway Postgres cluster (initdb + pg_ctl, random port) and a private
 * redis-server (AOF on, random port). Start and stop are asynchronous and wait for readiness, so a
 * test's load keeps running (and failing) while a service is down.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

export function hasBinary(name: string): boolean {
  try {
    execFileSync("which", [name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** `sh -c cmd`, as the postgres user when we are root (initdb and postgres refuse to run as root). */
function shell(cmd: string, timeoutMs: number): Promise<string> {
  const [file, args] = process.getuid?.() === 0 ? ["su", ["postgres", "-c", cmd]] : ["sh", ["-c", cmd]];
  return new Promise((resolve, reject) => {
    execFile(file, args as string[], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export interface ThrowawayPostgres {
  url: string;
  /** `pg_ctl stop -m <mode>`, resolved once the server is down. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** `pg_ctl start`, resolved once the server accepts connections. */
  start(): Promise<void>;
  /** Stop (immediate) if running and delete the cluster. Safe to call more than once. */
  destroy(): Promise<void>;
  logTail(chars?: number): string;
}

/**
 * A fresh cluster with trust auth. fsync is off: the suites restart the server cleanly (no OS crash),
 * where fsync changes nothing, and the cluster shares a loaded machine.
 */
export async function createThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "condense-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const log = join(dir, "log");
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let destroyed = false;
  try {
    await shell(`initdb -D ${data} -U postgres --auth=trust --no-sync >/dev/null`, 60_000);
    await shell(`pg_ctl -D ${data} -o "${opts}" -l ${log} -w -t 60 start >/dev/null`, 70_000);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    // The postmaster is signalled directly (what pg_ctl stop does) so the server starts shutting down
    // within a millisecond of the call, not after a `su` and a pg_ctl process have started.
    stop: async (mode = "fast") => {
      const pidFile = join(data, "postmaster.pid");
      const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      process.kill(pid, mode === "fast" ? "SIGINT" : "SIGQUIT");
      const until = Date.now() + 60_000;
      // The postmaster removes its pid file as the last step of a shutdown (pg_ctl waits on it too).
      while (existsSync(pidFile)) {
        if (Date.now() > until)
          throw new Error(`postgres (pid ${pid}) still running 60 s after a ${mode} shutdown request`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    start: async () => {
      await shell(`pg_ctl -D ${data} -o "${opts}" -l ${log} -w -t 60 start >/dev/null`, 70_000);
    },
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      try {
        await shell(
          `pg_ctl -D ${data} status >/dev/null && pg_ctl -D ${data} -m immediate -w -t 30 stop >/dev/null`,
          40_000,
        );
      } catch {
        /* not running */
      }
      rmSync(dir, { recursive: true, force: true });
    },
    logTail: (chars = 3000) => (existsSync(log) ? readFileSync(log, "utf8").slice(-chars) : "(no log)"),
  };
}

export interface PrivateRedis {
  url: string;
  /** SIGTERM (Redis flushes its AOF), resolved once the process exited. */
  stop(): Promise<void>;
  /** Start on the same port and data directory, resolved once it answers PING. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  r.on("error", () => {});
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "condense-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  const running = () => proc !== undefined && proc.exitCode === null && proc.signalCode === null;
  const start = async () => {
    if (running()) return;
    proc = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "yes",
        "--dir",
        dir,
        "--maxmemory-policy",
        "noeviction",
      ],
      { stdio: "ignore" },
    );
    const until = Date.now() + 20_000;
    while (!(await redisAnswers(url))) {
      if (!running())
        throw new Error(`redis-server on ${port} exited during start (${proc.exitCode ?? proc.signalCode})`);
      if (Date.now() > until) throw new Error(`redis-server on ${port} did not answer PING in 20 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const p = proc;
    if (!p || !running()) return;
    const exited = new Promise((res) => p.once("exit", res));
    p.kill("SIGTERM");
    const t = setTimeout(() => p.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  };
  await start();
  return {
    url,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
