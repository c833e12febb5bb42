/**
 * `pnpm bench:worker`: flush throughput and latency of 1, 2 and 4 worker processes (BullMQ on
 * Redis, Postgres) x 100 concurrent sessions, with the deterministic summarizer and with a local
 * OpenAI-compatible fake LLM that answers in 200 ms. Each session loops: capture one batch (two
 * 1.5 KB outputs), record a flush request, enqueue it, wait until the session's state version moves.
 *
 * Prints flushes/s, end-to-end latency p50/p99 (request -> new state version visible), and the
 * per-flush queue+DB overhead: end-to-end latency minus the time spent inside summarizer calls,
 * measured on single sequential flushes of one session (no contention), p50, and how much of it is
 * inside the worker's run (its DB work) versus enqueue, queue pickup and the version poll.
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (default
 * redis://127.0.0.1:6379), BENCH_FLUSHES_PER_SESSION (default 5), BENCH_WORKER_CONCURRENCY (default 4).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpus } from "node:os";
import { and, eq, inArray } from "drizzle-orm";
import postgres from "postgres";
import { createDb, createFlushRequest, ensureTenant, insertCaptures, migrateDb, schema, type Db } from "@condense/db";
import { condenseJobs, createBullmqQueue, type CondenseJobs, type JobQueue } from "@condense/queue";
import { spawnBenchWorker, type BenchWorker } from "./bench-workers.ts";
import { startFakeLlm } from "./fake-llm.ts";

const ADMIN = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const SESSIONS = 100;
const PER_SESSION = Number(process.env.BENCH_FLUSHES_PER_SESSION ?? 5);
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? "4";
const TENANT = "bench";

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN; };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function batchFor(s: number, i: number) {
  const t = 1_700_000_000_000 + i * 1000;
  const text = (k: number) => `s${s} flush ${i} call ${k}\n${"bench output line with some content\n".repeat(42)}`;
  return [{ turnIndex: i, timestamp: t, assistantText: `step ${i}`, toolCalls: [0, 1].map((k) => ({ toolCallId: `s${s}i${i}c${k}`, toolName: "bash", args: { k }, resultText: text(k), isError: false, resultTimestamp: t + k })) }];
}

/** Polls the versions of every waiting session with one query, resolving each waiter when its version moves. */
function versionWatcher(db: Db) {
  const waiting = new Map<string, { above: number; resolve: () => void }[]>();
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const ids = [...waiting.keys()];
      if (ids.length > 0) {
        const rows = await db.select({ id: schema.sessions.sessionId, v: schema.sessions.version }).from(schema.sessions)
          .where(and(eq(schema.sessions.tenantId, TENANT), inArray(schema.sessions.sessionId, ids)));
        for (const r of rows) {
          const list = waiting.get(r.id) ?? [];
          const keep = list.filter((w) => { if (r.v > w.above) { w.resolve(); return false; } return true; });
          if (keep.length) waiting.set(r.id, keep); else waiting.delete(r.id);
        }
      }
      await sleep(2);
    }
  })();
  return {
    until(sessionId: string, above: number) { return new Promise<void>((resolve) => waiting.set(sessionId, [...(waiting.get(sessionId) ?? []), { above, resolve }])); },
    async close() { stop = true; await loop; },
  };
}

interface RunResult { workers: number; summarizer: string; flushes: number; seconds: number; p50: number; p99: number; runP50: number; queueWaitP50: number }

async function oneSessionFlush(db: Db, queue: JobQueue<CondenseJobs>, watch: ReturnType<typeof versionWatcher>, s: number, i: number, version: number): Promise<{ ms: number; version: number }> {
  await insertCaptures(db, { tenantId: TENANT, sessionId: `s${s}`, captureId: `c${i}`, batches: batchFor(s, i) });
  const t0 = performance.now();
  const req = await createFlushRequest(db, { tenantId: TENANT, sessionId: `s${s}`, trigger: "budget" });
  await queue.enqueue("flush-session", { tenantId: TENANT, sessionId: `s${s}`, flushRequestId: req.id, cursor: req.cursor });
  await watch.until(`s${s}`, version);
  return { ms: performance.now() - t0, version: version + 1 };
}

async function run(workers: number, summarizer: "deterministic" | "fake-llm-200ms", llmBaseUrl: string): Promise<RunResult & { overheadP50: number; soloWorkerRunP50: number; soloE2eP50: number }> {
  const name = `condense_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN); url.pathname = `/${name}`;
  const handle = await createDb(url.toString(), { max: 20 });
  await migrateDb(handle);
  await ensureTenant(handle.db, { id: TENANT });
  const prefix = `condense-bench-${randomBytes(4).toString("hex")}`;
  const queue = await createBullmqQueue({ catalog: condenseJobs, redisUrl: REDIS, prefix });
  const summarizerConfig = summarizer === "deterministic" ? {} : {
    summarizerModel: "fake/bench", retries: 0,
    customModels: [{ provider: "fake", id: "bench", api: "openai-completions", baseUrl: llmBaseUrl, apiKey: "bench" }],
  };
  const traceDir = mkdtempSync(join(tmpdir(), "condense-bench-trace-"));
  const procs: BenchWorker[] = Array.from({ length: workers }, (_, k) => spawnBenchWorker(`b${k + 1}`, {
    DATABASE_URL: url.toString(), REDIS_URL: REDIS, CONDENSE_REDIS_PREFIX: prefix, WORKER_CONCURRENCY, CONDENSE_MIGRATE: "false",
    CONDENSE_SUMMARIZER_CONFIG: JSON.stringify(summarizerConfig), LOG_LEVEL: "warn", CONDENSE_TRACE_FILE: join(traceDir, `b${k + 1}.jsonl`),
  }));
  const watch = versionWatcher(handle.db);
  try {
    await Promise.all(procs.map((p) => p.ready));
    // Overhead: sequential flushes of one session, nothing else running.
    const solo: number[] = [];
    let v = 0;
    for (let i = 0; i < 20; i++) { const r = await oneSessionFlush(handle.db, queue, watch, 1000, i, v); v = r.version; solo.push(r.ms); }
    const llmMs = summarizer === "deterministic" ? 0 : 200;
    const overheadP50 = pct(solo, 50) - llmMs;
    const traces = readdirSync(traceDir).flatMap((f) => readFileSync(join(traceDir, f), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { sessionId: string; startedAt: number; endedAt: number }));
    const soloRuns = traces.filter((t) => t.sessionId === "s1000").map((t) => t.endedAt - t.startedAt);

    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, async (_, s) => {
      let version = 0;
      for (let i = 0; i < PER_SESSION; i++) { const r = await oneSessionFlush(handle.db, queue, watch, s, i, version); version = r.version; latencies.push(r.ms); }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const m = await handle.db.select({ run: schema.flushMetrics.runMs, wait: schema.flushMetrics.queueWaitMs }).from(schema.flushMetrics);
    return {
      workers, summarizer, flushes: latencies.length, seconds, p50: pct(latencies, 50), p99: pct(latencies, 99),
      runP50: pct(m.map((x) => x.run ?? 0), 50), queueWaitP50: pct(m.map((x) => x.wait ?? 0), 50), overheadP50,
      soloWorkerRunP50: pct(soloRuns, 50) - llmMs, soloE2eP50: pct(solo, 50),
    };
  } finally {
    await watch.close();
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(traceDir, { recursive: true, force: true });
    await queue.close(1000);
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
    const { Redis } = await import("ioredis");
    const r = new Redis(REDIS);
    let cursor = "0";
    do { const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000); cursor = next; if (keys.length) await r.del(...keys); } while (cursor !== "0");
    r.disconnect();
  }
}

async function main() {
  const llm = await startFakeLlm(200);
  console.log(`bench:worker — ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ""}, Node ${process.version}, ${SESSIONS} sessions x ${PER_SESSION} flushes, worker concurrency ${WORKER_CONCURRENCY}`);
  console.log("summarizer        workers  flushes  flushes/s  e2e p50 ms  e2e p99 ms  run p50 ms  queue-wait p50 ms | solo: e2e p50  overhead p50  worker-run-minus-LLM p50 (ms)");
  try {
    for (const summarizer of ["deterministic", "fake-llm-200ms"] as const) {
      for (const workers of [1, 2, 4]) {
        const r = await run(workers, summarizer, llm.baseUrl);
        console.log(`${summarizer.padEnd(17)} ${String(workers).padStart(7)}  ${String(r.flushes).padStart(7)}  ${(r.flushes / r.seconds).toFixed(1).padStart(9)}  ${r.p50.toFixed(1).padStart(10)}  ${r.p99.toFixed(1).padStart(10)}  ${String(r.runP50).padStart(10)}  ${String(r.queueWaitP50).padStart(17)}  | ${r.soloE2eP50.toFixed(1).padStart(12)}  ${r.overheadP50.toFixed(1).padStart(12)}  ${r.soloWorkerRunP50.toFixed(1).padStart(10)}`);
      }
    }
  } finally {
    await llm.close();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
