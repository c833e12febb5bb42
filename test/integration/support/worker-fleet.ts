/**
 * Multi-process harness for the worker suites: real worker processes (`node --import tsx
 * apps/worker/src/main.ts`), a scratch Postgres database, a private BullMQ key prefix, a producer
 * that records flush requests and enqueues them the way the API does, and the trace files the
 * workers write (one line per flush run, for the serialization checks).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import { createFlushRequest, createScratchDatabase, insertCaptures, type Db, type FlushRequest } from "@condense/db";
import type { CapturedBatch } from "@condense/core";
import { condenseJobs, type BullmqJobQueue, type CondenseJobs, type JobQueue } from "@condense/queue";
import type { FlushTrace } from "@condense/worker";
import { REPO_ROOT } from "@condense/test-support/sessions";

export const WORKER_MAIN = resolve(REPO_ROOT, "apps/worker/src/main.ts");

export interface WorkerProc {
  id: string;
  proc: ChildProcess;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
  /** The tail of the worker's log (pino writes JSON lines to stdout), for assertions and diagnostics. */
  logs: () => string;
}

export function spawnWorker(id: string, env: Record<string, string>): WorkerProc {
  const proc = spawn(process.execPath, ["--import", "tsx", WORKER_MAIN], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", WORKER_ID: id, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let err = "";
  let out = "";
  proc.stderr?.on("data", (d: Buffer) => {
    err = (err + d.toString()).slice(-20_000);
  });
  proc.stdout?.on("data", (d: Buffer) => {
    out = (out + d.toString()).slice(-50_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    proc.once("exit", (code, signal) => res({ code, signal })),
  );
  const ready = new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`worker ${id} not ready in 60 s: ${err}`)), 60_000);
    proc.on("message", (m: { type?: string }) => {
      if (m?.type === "ready") {
        clearTimeout(timer);
        res();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`worker ${id} exited before ready (${code ?? signal}): ${err}`));
    });
  });
  ready.catch(() => {});
  return { id, proc, ready, exited, stderr: () => err, logs: () => out };
}

export async function stopWorker(w: WorkerProc, signal: NodeJS.Signals = "SIGTERM", timeoutMs = 30_000): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  w.proc.kill(signal);
  const t = setTimeout(() => w.proc.kill("SIGKILL"), timeoutMs);
  await w.exited;
  clearTimeout(t);
}

export interface ScratchPg {
  url: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(adminUrl: string): Promise<ScratchPg> {
  const scratch = await createScratchDatabase(adminUrl, "condense_it");
  return { url: scratch.url, drop: scratch.drop };
}

/** Delete every key under a BullMQ prefix (and the breaker keys under it). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const r = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}

type BullmqQueue = BullmqJobQueue<CondenseJobs>["queue"];

/**
 * Per session, the BullMQ job that holds its flush key (keep-last-if-active): its state and, when
 * active, who holds its lock and for how long still. A job that Redis moved to active just before it
 * went down, whose reply the worker never got, shows as active with a lock that no worker renews.
 * For a timeout's diagnostics; never throws.
 */
export async function flushKeyHolders(
  queue: BullmqQueue,
  redisUrl: string,
  tenantId: string,
  sessionIds: readonly string[],
): Promise<string> {
  const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  r.on("error", () => {});
  const read = (async () => {
    await r.connect();
    const lines: string[] = [];
    for (const sessionId of sessionIds) {
      const key = condenseJobs["flush-session"].deduplication!.key({
        tenantId,
        sessionId,
        flushRequestId: "",
        cursor: 0,
      });
      const id = await queue.getDeduplicationJobId(key);
      if (!id) {
        lines.push(`${sessionId}: no job holds its key`);
        continue;
      }
      const lockKey = `${queue.toKey(id)}:lock`;
      const [state, lock, pttl] = await Promise.all([queue.getJobState(id), r.get(lockKey), r.pttl(lockKey)]);
      lines.push(`${sessionId}: ${id} ${state}${lock ? ` lock ${lock} lapses in ${pttl} ms` : ""}`);
    }
    return lines.join("\n") || "(no session)";
  })();
  const timeout = new Promise<string>((res) => setTimeout(() => res("(Redis did not answer in 5 s)"), 5000).unref());
  try {
    return await Promise.race([read, timeout]).catch((e: unknown) => `(queue unreadable: ${String(e)})`);
  } finally {
    r.disconnect();
  }
}

/** Jobs BullMQ moved back to wait after their lock lapsed (a stalled or orphaned active job), of those it keeps. */
export async function jobsRedelivered(queue: BullmqQueue): Promise<number> {
  const jobs = await queue.getJobs(["completed", "failed", "active", "wait", "delayed", "prioritized"]);
  return jobs.filter((j) => j.stalledCounter > 0).length;
}

export function traceDir(): {
  dir: string;
  file: (id: string) => string;
  read: () => FlushTrace[];
  remove: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), "condense-trace-"));
  return {
    dir,
    file: (id) => join(dir, `${id}.jsonl`),
    read: () =>
      readdirSync(dir).flatMap((f) =>
        readFileSync(join(dir, f), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FlushTrace),
      ),
    remove: () => {
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the API does for POST /flushes: record the request, then enqueue its cursor. */
export async function requestAndEnqueue(
  db: Db,
  queue: JobQueue<CondenseJobs>,
  tenantId: string,
  sessionId: string,
  extra: { settings?: Record<string, unknown>; chains?: unknown[] } = {},
): Promise<FlushRequest> {
  const r = await createFlushRequest(db, {
    tenantId,
    sessionId,
    trigger: "budget",
    metrics: { frontierGapTokens: 1 },
    settings: extra.settings ?? {},
    chains: extra.chains ?? [],
  });
  await queue.enqueue("flush-session", { tenantId, sessionId, flushRequestId: r.id, cursor: r.cursor });
  return r;
}

export async function captureBatches(
  db: Db,
  tenantId: string,
  sessionId: string,
  captureId: string,
  batches: CapturedBatch[],
) {
  return insertCaptures(db, { tenantId, sessionId, captureId, batches });
}

/** Serialization check: per session, no two traced runs overlap in time. */
export function overlappingRuns(traces: FlushTrace[]): [FlushTrace, FlushTrace][] {
  const bySession = new Map<string, FlushTrace[]>();
  for (const t of traces) {
    const k = `${t.tenantId}/${t.sessionId}`;
    bySession.set(k, [...(bySession.get(k) ?? []), t]);
  }
  const out: [FlushTrace, FlushTrace][] = [];
  for (const list of bySession.values()) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < list.length; i++)
      if (list[i]!.startedAt < list[i - 1]!.endedAt) out.push([list[i - 1]!, list[i]!]);
  }
  return out;
}

/** Poll `check` until true; on timeout throw, with `diagnose()`'s account of the state if given. */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  pollMs = 250,
  diagnose?: () => Promise<string> | string,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) {
      const state = diagnose
        ? await Promise.resolve()
            .then(diagnose)
            .catch((e: unknown) => `(diagnostics failed: ${String(e)})`)
        : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state ? `\n${state}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
