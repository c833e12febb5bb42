/**
 * `pnpm bench:worker`: what a flush costs besides the summarizer, and how throughput scales.
 *
 * 0. Platform: one round trip to Postgres and to Redis after idle gaps of 0-200 ms (platform-latency.ts),
 *    the floor under each sequential hop of a flush on this machine.
 * 1. Profile (in process, no queue, Postgres): sequential flushes of one session through runFlush on
 *    a counted database: ms per stage, statements and transactions per flush.
 * 2. Embedded solo, one process, sequential flushes of one session: the embedded default (PGlite in a
 *    data directory and the in-process queue; a version counts as visible at the end of its commit), and
 *    the in-process queue on Postgres.
 * 3. Fleet (BullMQ on Redis, Postgres, 1/2/4 worker processes), deterministic summarizer and a local
 *    OpenAI-compatible fake LLM answering in 200 ms: first sequential flushes of one session (solo,
 *    no contention), then 100 concurrent sessions x BENCH_FLUSHES_PER_SESSION flushes (load).
 *
 * Per flush, solo: e2e = record the flush request (createFlushRequestForSession, the API's statement) -> the session's new version is
 * visible; overhead = e2e minus the summarizer stage of that run (from the worker's trace), split into
 * request row, enqueue, queue pickup (enqueue returned -> handler started), the worker's own work
 * (run minus summarizer: database round trips and planning), and the bench's detection lag (commit
 * finished -> the version poll saw it). Load: flushes/s, e2e p50/p99, queue wait p50 (enqueue ->
 * handler start), run p50, and run-minus-summarizer p50, from the workers' trace lines.
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (default
 * redis://127.0.0.1:6379), BENCH_FLUSHES_PER_SESSION (5), BENCH_WORKER_CONCURRENCY (4),
 * BENCH_SOLO_FLUSHES (40), BENCH_ONLY ("platform", "profile", "embedded", "fleet": run one part), BENCH_SUMMARIZERS
 * ("deterministic,fake-llm-200ms"), BENCH_WORKERS ("1,2,4"), BENCH_STAGES=1 (print the solo runs' stage times),
 * BENCH_WORKER_PROF=<dir> (each worker process writes a V8 CPU profile there when it exits).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execSync } from "node:child_process";
import postgres from "postgres";
import { createDb, createFlushRequestForSession, ensureTenant, insertCaptures, migrateDb, type Db } from "@condense/db";
import {
  condenseJobs,
  createBullmqQueue,
  createInProcessQueue,
  type CondenseJobs,
  type JobQueue,
} from "@condense/queue";
import { createSummarizer } from "@condense/summarizer";
import { createRuntime, loadWorkerConfig, type FlushTimings, type FlushTrace } from "../src/index.ts";
import { spawnBenchWorker, type BenchWorker } from "./bench-workers.ts";
import { createCountedDb } from "./counted-db.ts";
import { startFakeProvider } from "@condense/test-support/fake-provider";
import { profileFlushes } from "./flush-profile.ts";
import { hr, pct } from "./bench-stats.ts";
import { measureIdleLatency, printIdleLatency } from "./platform-latency.ts";
import { commitEnd, traceWatcher, versionWatcher, type VersionWatch } from "./version-watch.ts";

const ADMIN = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const SESSIONS = 100;
const PER_SESSION = Number(process.env.BENCH_FLUSHES_PER_SESSION ?? 5);
const SOLO = Number(process.env.BENCH_SOLO_FLUSHES ?? 40);
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? "4";
const ONLY = process.env.BENCH_ONLY;
const TENANT = "bench";
const SUMMARIZERS = (process.env.BENCH_SUMMARIZERS ?? "deterministic,fake-llm-200ms").split(",") as (
  | "deterministic"
  | "fake-llm-200ms"
)[];
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").map(Number);

const p50 = (xs: number[]) => pct(xs, 50);
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

function batchFor(s: number, i: number) {
  const t = 1_700_000_000_000 + i * 1000;
  const text = (k: number) => `s${s} flush ${i} call ${k}\n${"bench output line with some content\n".repeat(42)}`;
  return [
    {
      turnIndex: i,
      timestamp: t,
      assistantText: `step ${i}`,
      toolCalls: [0, 1].map((k) => ({
        toolCallId: `s${s}i${i}c${k}`,
        toolName: "bash",
        args: { k },
        resultText: text(k),
        isError: false,
        resultTimestamp: t + k,
      })),
    },
  ];
}

interface FlushSample {
  requestId: string;
  t0: number;
  requested: number;
  enqueued: number;
  visible: number;
}

async function oneSessionFlush(
  db: Db,
  queue: JobQueue<CondenseJobs>,
  watch: VersionWatch,
  s: number,
  i: number,
  version: number,
): Promise<FlushSample> {
  await insertCaptures(db, { tenantId: TENANT, sessionId: `s${s}`, captureId: `c${i}`, batches: batchFor(s, i) });
  const t0 = hr();
  const req = await createFlushRequestForSession(db, { tenantId: TENANT, sessionId: `s${s}`, trigger: "budget" });
  if (!req) throw new Error(`bench session s${s} does not exist`);
  const requested = hr();
  const seen = watch.until(`s${s}`, version);
  await queue.enqueue("flush-session", {
    tenantId: TENANT,
    sessionId: `s${s}`,
    flushRequestId: req.id,
    cursor: req.cursor,
  });
  const enqueued = hr();
  return { requestId: req.id, t0, requested, enqueued, visible: await seen };
}

interface SoloBreakdown {
  stages: string;
  n: number;
  e2e: number;
  summarizer: number;
  overhead: number;
  request: number;
  enqueue: number;
  pickup: number;
  workerOwn: number;
  detect: number;
  statusOk: number;
}

function soloBreakdown(samples: FlushSample[], traces: FlushTrace[]): SoloBreakdown {
  const byReq = new Map(traces.map((t) => [t.flushRequestId, t]));
  const rows = samples.flatMap((s) => {
    const t = byReq.get(s.requestId);
    if (!t?.timings || t.startedAtHr === undefined) return [];
    const summ = t.timings.stages.summarize ?? 0;
    return [
      {
        e2e: s.visible - s.t0,
        summarizer: summ,
        overhead: s.visible - s.t0 - summ,
        request: s.requested - s.t0,
        enqueue: s.enqueued - s.requested,
        pickup: t.startedAtHr - s.enqueued,
        workerOwn: t.timings.total - summ - (t.timings.stages.chains ?? 0),
        detect: s.visible - commitEnd(t),
        ok: t.status === "committed" ? 1 : 0,
      },
    ];
  });
  const col = (k: keyof (typeof rows)[number]) => p50(rows.map((r) => r[k]));
  const mine = samples.flatMap((s) => {
    const t = byReq.get(s.requestId);
    return t?.timings ? [t.timings] : [];
  });
  const names = [...new Set(mine.flatMap((t) => Object.keys(t.stages)))] as (keyof FlushTimings["stages"])[];
  const stages = names.map((k) => `${k} ${f1(p50(mine.map((t) => t.stages[k] ?? 0)))}`).join(", ");
  return {
    stages,
    n: rows.length,
    e2e: col("e2e"),
    summarizer: col("summarizer"),
    overhead: col("overhead"),
    request: col("request"),
    enqueue: col("enqueue"),
    pickup: col("pickup"),
    workerOwn: col("workerOwn"),
    detect: col("detect"),
    statusOk: rows.reduce((n, r) => n + r.ok, 0),
  };
}

async function scratchDb(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `condense_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(ADMIN, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
    },
  };
}

async function clearRedisPrefix(prefix: string) {
  const { Redis } = await import("ioredis");
  const r = new Redis(REDIS);
  let cursor = "0";
  do {
    const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await r.del(...keys);
  } while (cursor !== "0");
  r.disconnect();
}

function summarizerConfigFor(summarizer: "deterministic" | "fake-llm-200ms", llmBaseUrl: string) {
  return summarizer === "deterministic"
    ? {}
    : {
        summarizerModel: "fake/bench",
        retries: 0,
        customModels: [
          { provider: "fake", id: "bench", api: "openai-completions", baseUrl: llmBaseUrl, apiKey: "bench" },
        ],
      };
}

async function runPlatform() {
  const scratch = await scratchDb();
  try {
    console.log(
      `\n## Platform: one round trip after an idle gap (Postgres on its own connection, Redis PING; load ${load()})`,
    );
    printIdleLatency(await measureIdleLatency(scratch.url, REDIS));
  } finally {
    await scratch.drop();
  }
}

async function runProfile(llmBaseUrl: string) {
  const scratch = await scratchDb();
  const handle = await createDb(scratch.url, { max: 4 });
  const counted = createCountedDb(scratch.url);
  try {
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: TENANT });
    console.log(
      `\n## Profile: in process, no queue, Postgres, ${SOLO} sequential flushes of one session (load ${load()})`,
    );
    for (const kind of ["deterministic", "fake-llm-200ms"] as const) {
      const summarizer = createSummarizer(
        summarizerConfigFor(kind, llmBaseUrl) as Parameters<typeof createSummarizer>[0],
      );
      const p = await profileFlushes(counted, summarizer, {
        tenantId: TENANT,
        sessionId: `profile-${kind}`,
        flushes: SOLO,
        batchFor: (i) => batchFor(9000, i),
      });
      const stages = Object.entries(p.stageP50)
        .map(([k, v]) => `${k} ${f1(v)}`)
        .join(", ");
      const own = (p.stageP50.total ?? 0) - (p.stageP50.summarize ?? 0);
      console.log(`${kind}: p50 ms per stage: ${stages}; run minus summarizer ${f1(own)} ms`);
      console.log(
        `  statements/flush ${p.statements} (by stage: ${Object.entries(p.statementsByStage)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}), transactions ${p.transactions}, round trips <= ${p.roundTripsUpperBound}`,
      );
      if (kind === "deterministic") for (const s of p.sample) console.log(`    ${s}`);
    }
  } finally {
    await counted.close();
    await handle.close();
    await scratch.drop();
  }
}

function printSolo(label: string, b: SoloBreakdown) {
  console.log(
    `${label.padEnd(34)} ${String(b.n).padStart(3)} ${f1(b.e2e).padStart(8)} ${f1(b.summarizer).padStart(8)} ${f1(b.overhead).padStart(9)} ${f1(b.request).padStart(8)} ${f1(b.enqueue).padStart(8)} ${f1(b.pickup).padStart(7)} ${f1(b.workerOwn).padStart(11)} ${f1(b.detect).padStart(7)}`,
  );
  if (process.env.BENCH_STAGES) console.log(`    stages p50 ms: ${b.stages}`);
}
const SOLO_HEADER = `${"mode".padEnd(34)} ${"n".padStart(3)} ${"e2e".padStart(8)} ${"summ.".padStart(8)} ${"overhead".padStart(9)} ${"request".padStart(8)} ${"enqueue".padStart(8)} ${"pickup".padStart(7)} ${"worker-own".padStart(11)} ${"detect".padStart(7)}   (ms, p50 each)`;

/**
 * Sequential flushes of one session through the in-process queue and an in-process worker, on the
 * embedded default (PGlite in a data directory, as a single developer runs it) or on Postgres. PGlite
 * has no second connection to LISTEN on, so its versions are seen through the worker's trace.
 */
async function runEmbedded(
  store: "pglite" | "postgres",
  summarizer: "deterministic" | "fake-llm-200ms",
  llmBaseUrl: string,
): Promise<SoloBreakdown> {
  const dir = store === "pglite" ? mkdtempSync(join(tmpdir(), "condense-bench-pglite-")) : undefined;
  const scratch = dir ? undefined : await scratchDb();
  const url = dir ? `pglite:${dir}` : scratch!.url;
  const handle = await createDb(url, { max: 10 });
  const traces: FlushTrace[] = [];
  const traced = dir ? traceWatcher() : undefined;
  const queue = createInProcessQueue({ catalog: condenseJobs });
  const config = loadWorkerConfig({
    DATABASE_URL: url,
    WORKER_CONCURRENCY: WORKER_CONCURRENCY,
    CONDENSE_MIGRATE: "false",
    CONDENSE_REQUEUE_AFTER_MS: "0",
    LOG_LEVEL: "warn",
    CONDENSE_SUMMARIZER_CONFIG: JSON.stringify(summarizerConfigFor(summarizer, llmBaseUrl)),
  });
  const runtime = await createRuntime(config, {
    db: handle,
    jobQueue: queue,
    onFlushTrace: (t) => {
      traces.push(t);
      traced?.onTrace(t);
    },
  });
  let watch: VersionWatch | undefined = traced;
  try {
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: TENANT });
    watch ??= await versionWatcher(url);
    await runtime.start();
    const samples: FlushSample[] = [];
    let v = 0;
    for (let i = 0; i < SOLO; i++) {
      const r = await oneSessionFlush(handle.db, queue, watch, 1000, i, v);
      v++;
      samples.push(r);
    }
    return soloBreakdown(samples.slice(3), traces);
  } finally {
    await watch?.close();
    await runtime.close(1000);
    await queue.close(1000);
    await handle.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

interface FleetResult {
  solo: SoloBreakdown;
  flushes: number;
  seconds: number;
  p50: number;
  p99: number;
  queueWaitP50: number;
  runP50: number;
  ownP50: number;
  ok: number;
}

async function runFleet(
  workers: number,
  summarizer: "deterministic" | "fake-llm-200ms",
  llmBaseUrl: string,
): Promise<FleetResult> {
  const scratch = await scratchDb();
  const handle = await createDb(scratch.url, { max: 20 });
  await migrateDb(handle);
  await ensureTenant(handle.db, { id: TENANT });
  const prefix = `condense-bench-${randomBytes(4).toString("hex")}`;
  const queue = await createBullmqQueue({ catalog: condenseJobs, redisUrl: REDIS, prefix });
  const traceDir = mkdtempSync(join(tmpdir(), "condense-bench-trace-"));
  const procs: BenchWorker[] = Array.from({ length: workers }, (_, k) =>
    spawnBenchWorker(`b${k + 1}`, {
      DATABASE_URL: scratch.url,
      REDIS_URL: REDIS,
      CONDENSE_REDIS_PREFIX: prefix,
      WORKER_CONCURRENCY,
      CONDENSE_MIGRATE: "false",
      CONDENSE_SUMMARIZER_CONFIG: JSON.stringify(summarizerConfigFor(summarizer, llmBaseUrl)),
      LOG_LEVEL: "warn",
      CONDENSE_TRACE_FILE: join(traceDir, `b${k + 1}.jsonl`),
    }),
  );
  const readTraces = () =>
    readdirSync(traceDir).flatMap((f) =>
      readFileSync(join(traceDir, f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as FlushTrace),
    );
  try {
    await Promise.all(procs.map((p) => p.ready));
    const soloWatch = await versionWatcher(scratch.url);
    const samples: FlushSample[] = [];
    let v = 0;
    for (let i = 0; i < SOLO; i++) {
      const r = await oneSessionFlush(handle.db, queue, soloWatch, 1000, i, v);
      v++;
      samples.push(r);
    }
    await soloWatch.close();
    // The first flushes warm connections and prepared statements in every worker process.
    // Every worker process warms its own connections and prepared statements: 3 flushes per process.
    const solo = soloBreakdown(samples.slice(3 * workers), readTraces());

    const watch = await versionWatcher(scratch.url);
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        let version = 0;
        for (let i = 0; i < PER_SESSION; i++) {
          const r = await oneSessionFlush(handle.db, queue, watch, s, i, version);
          version++;
          latencies.push(r.visible - r.t0);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    await watch.close();
    const loadTraces = readTraces().filter((t) => t.sessionId !== "s1000" && t.timings);
    return {
      solo,
      flushes: latencies.length,
      seconds,
      p50: p50(latencies),
      p99: pct(latencies, 99),
      queueWaitP50: p50(loadTraces.map((t) => t.startedAtHr! - (t.enqueuedAt ?? t.startedAtHr!))),
      runP50: p50(loadTraces.map((t) => t.timings!.total)),
      ownP50: p50(loadTraces.map((t) => t.timings!.total - (t.timings!.stages.summarize ?? 0))),
      ok: loadTraces.filter((t) => t.status === "committed").length,
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(traceDir, { recursive: true, force: true });
    await queue.close(1000);
    await handle.close();
    await scratch.drop();
    await clearRedisPrefix(prefix);
  }
}

async function main() {
  // Every summarizer call is answered after 200 ms, labelling as many calls as the prompt numbers ("[[1:bash]]").
  const llm = await startFakeProvider((req) => {
    const calls = Math.max(1, (JSON.stringify(req.body).match(/\[\[\d+:/g) ?? []).length || 2);
    const text = Array.from({ length: Math.min(calls, 8) }, (_, i) => `- [[${i + 1}:bash]] ran step ${i + 1}; exit 0`);
    return { kind: "ok", text: text.join("\n"), inputTokens: 400, outputTokens: 30, delayMs: 200 };
  });
  let rev = "?";
  try {
    rev = execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim();
  } catch {
    /* not a checkout */
  }
  console.log(
    `bench:worker — ${cpus().length} CPU(s) ${cpus()[0]?.model ?? ""}, Node ${process.version}, rev ${rev}, load ${load()}`,
  );
  try {
    if (!ONLY || ONLY === "platform") await runPlatform();
    if (!ONLY || ONLY === "profile") await runProfile(llm.openaiBaseUrl);
    if (!ONLY || ONLY === "embedded" || ONLY === "fleet") {
      console.log(
        `\n## Solo flushes: ${SOLO} sequential flushes of one session (the first 3 per worker process dropped as warm-up)`,
      );
      console.log(SOLO_HEADER);
    }
    if (!ONLY || ONLY === "embedded") {
      for (const summarizer of SUMMARIZERS)
        printSolo(
          `embedded default (PGlite dir), ${summarizer}`,
          await runEmbedded("pglite", summarizer, llm.openaiBaseUrl),
        );
      for (const summarizer of SUMMARIZERS)
        printSolo(
          `embedded in-process queue, ${summarizer}`,
          await runEmbedded("postgres", summarizer, llm.openaiBaseUrl),
        );
    }
    if (!ONLY || ONLY === "fleet") {
      const rows: string[] = [];
      for (const summarizer of SUMMARIZERS) {
        for (const workers of WORKERS) {
          const r = await runFleet(workers, summarizer, llm.openaiBaseUrl);
          printSolo(`BullMQ ${workers} worker(s), ${summarizer}`, r.solo);
          rows.push(
            `${summarizer.padEnd(15)} ${String(workers).padStart(7)} ${String(r.flushes).padStart(7)} ${(r.flushes / r.seconds).toFixed(1).padStart(9)} ${f1(r.p50).padStart(8)} ${f1(r.p99).padStart(8)} ${f1(r.queueWaitP50).padStart(10)} ${f1(r.runP50).padStart(7)} ${f1(r.ownP50).padStart(9)}  ${load()}`,
          );
        }
      }
      console.log(
        `\n## Load: ${SESSIONS} concurrent sessions x ${PER_SESSION} flushes, worker concurrency ${WORKER_CONCURRENCY}`,
      );
      console.log(
        `${"summarizer".padEnd(15)} ${"workers".padStart(7)} ${"flushes".padStart(7)} ${"flushes/s".padStart(9)} ${"e2e p50".padStart(8)} ${"e2e p99".padStart(8)} ${"queue wait".padStart(10)} ${"run".padStart(7)} ${"run-summ".padStart(9)}  load after (ms, p50 unless noted)`,
      );
      for (const r of rows) console.log(r);
    }
  } finally {
    await llm.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
