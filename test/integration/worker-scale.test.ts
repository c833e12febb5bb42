/**
 * Horizontal scale: 3 worker processes on real Postgres and BullMQ/Redis, 200 sessions x 5 flushes
 * with captures interleaved with running flushes. No ref is minted twice in a session, no two flushes
 * of one session overlap, every capture ends settled with a reason or pending with a reason, and
 * every run that did work wrote exactly one flush-metrics row.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, ensureTenant, migrateDb, type DbHandle } from "@condense/db";
import { condenseJobs, createBullmqQueue, type BullmqJobQueue, type CondenseJobs } from "@condense/queue";
import type { CapturedBatch } from "@condense/core";
import { captureOutcomes, refsMintedTwice, requestStates, withSql } from "./support/fleet-checks.ts";
import {
  captureBatches,
  dropRedisPrefix,
  overlappingRuns,
  requestAndEnqueue,
  scratchDatabase,
  spawnWorker,
  stopWorker,
  traceDir,
  waitUntil,
  type ScratchPg,
  type WorkerProc,
} from "./support/worker-fleet.ts";

const pgAdmin = inject("databaseUrl").startsWith("postgres") ? inject("databaseUrl") : "";
const redisUrl = inject("redisUrl");
if (!pgAdmin || !redisUrl)
  console.warn("\n!!! worker-scale: needs real Postgres and Redis (DATABASE_URL, REDIS_URL); SKIPPED !!!\n");

const SESSIONS = 200;
const ROUNDS = 5;
const TENANT = "scale";

function roundBatches(s: number, r: number): CapturedBatch[] {
  const t = 1_700_000_000_000 + r * 10_000;
  const text = (id: string, n: number) => `${id}: ${"result line\n".repeat(Math.ceil(n / 12))}`.slice(0, n);
  const calls = [0, 1].map((k) => ({
    toolCallId: `s${s}r${r}c${k}`,
    toolName: "bash",
    args: { cmd: `step ${r}.${k}` },
    resultText: text(`s${s}r${r}c${k}`, 1200 + 37 * k),
    isError: false,
    resultTimestamp: t + k,
  }));
  // Every third round re-reads the first round's output: a cross-flush dedup alias.
  const reread =
    r % 3 === 2
      ? [
          {
            toolCallId: `s${s}r${r}re`,
            toolName: "bash",
            args: { cmd: "step 0.0" },
            resultText: text(`s${s}r0c0`, 1200),
            isError: false,
            resultTimestamp: t + 5,
          },
        ]
      : [];
  return [
    { turnIndex: 2 * r, timestamp: t, assistantText: `round ${r}`, toolCalls: calls },
    {
      turnIndex: 2 * r + 1,
      timestamp: t + 3,
      assistantText: "",
      toolCalls: [
        {
          toolCallId: `s${s}r${r}tiny`,
          toolName: "ls",
          args: {},
          resultText: "a\nb\nc",
          isError: false,
          resultTimestamp: t + 3,
        },
        ...reread,
      ],
    },
  ];
}

describe.skipIf(!pgAdmin || !redisUrl)("worker fleet at scale (3 processes, BullMQ)", () => {
  let pg: ScratchPg;
  let handle: DbHandle;
  let producer: BullmqJobQueue<CondenseJobs>;
  const prefix = `condense-it-${randomBytes(4).toString("hex")}`;
  const traces = traceDir();
  const workers: WorkerProc[] = [];

  beforeAll(async () => {
    pg = await scratchDatabase(pgAdmin);
    handle = await createDb(pg.url, { max: 10 });
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: TENANT });
    producer = await createBullmqQueue({ catalog: condenseJobs, redisUrl, prefix });
    for (const id of ["w1", "w2", "w3"]) {
      workers.push(
        spawnWorker(id, {
          DATABASE_URL: pg.url,
          REDIS_URL: redisUrl,
          CONDENSE_REDIS_PREFIX: prefix,
          WORKER_CONCURRENCY: "8",
          CONDENSE_TRACE_FILE: traces.file(id),
          CONDENSE_MIGRATE: "false",
        }),
      );
    }
    await Promise.all(workers.map((w) => w.ready));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorker(w)));
    await producer?.close(1000);
    await handle?.close();
    await pg?.drop();
    await dropRedisPrefix(redisUrl, prefix);
    traces.remove();
  }, 120_000);

  it("keeps refs unique, sessions serialized and every capture accounted for", async () => {
    const db = handle.db;
    const sessions = Array.from({ length: SESSIONS }, (_, s) => s);
    for (let r = 0; r < ROUNDS; r++) {
      // Rounds are fired back to back: round r+1's captures land while round r's flushes run.
      for (let i = 0; i < sessions.length; i += 25) {
        await Promise.all(
          sessions.slice(i, i + 25).map(async (s) => {
            await captureBatches(db, TENANT, `sess-${s}`, `r${r}`, roundBatches(s, r));
            await requestAndEnqueue(db, producer, TENANT, `sess-${s}`);
          }),
        );
      }
    }
    await waitUntil(async () => !(await requestStates(pg.url)).queued, 400_000, "every flush request to finish");
    await waitUntil(
      async () => {
        const c = await producer.counts();
        return c.active + c.waiting + c.delayed === 0;
      },
      60_000,
      "an idle queue",
    );

    expect(await refsMintedTwice(pg.url)).toEqual([]);
    const runs = traces.read();
    expect(overlappingRuns(runs)).toEqual([]);
    expect(new Set(runs.map((t) => t.workerId)).size).toBe(3);
    expect(runs.filter((t) => t.status === "error")).toEqual([]);

    const outcomes = await captureOutcomes(pg.url);
    const total = outcomes.reduce((n, o) => n + o.n, 0);
    expect(total).toBe(SESSIONS * ROUNDS * 3 + SESSIONS * Math.floor((ROUNDS + 0) / 3));
    for (const o of outcomes) expect(o.reasonMissing, `${o.status} without a reason`).toBe(0);
    expect(outcomes.find((o) => o.status === "pending")?.n ?? 0).toBe(0);
    expect(outcomes.find((o) => o.status === "deduped")?.n).toBe(SESSIONS);

    const states = await requestStates(pg.url);
    expect(states.failed ?? 0).toBe(0);
    expect((states.committed ?? 0) + (states.coalesced ?? 0)).toBe(SESSIONS * ROUNDS);
    const metricRows = await withSql(
      pg.url,
      async (sql) => (await sql`select count(*)::int n from flush_metrics`)[0]!.n as number,
    );
    // One row per run that did the work, and one per request coalesced into a later run (written by
    // that run's commit; a late run of a coalesced request writes none).
    expect(metricRows).toBe(
      runs.filter((t) => t.status !== "already-committed" && t.status !== "error" && t.status !== "coalesced").length +
        (states.coalesced ?? 0),
    );
    // Each session's refs are dense except where a reservation was burned (none here).
    const gaps = await withSql(
      pg.url,
      (sql) =>
        sql`select session_id, max(substr(short_ref, 2)::int) mx, count(*)::int n from tool_call_records where short_ref is not null group by 1 having max(substr(short_ref, 2)::int) <> count(*)`,
    );
    expect(gaps).toEqual([]);
    console.log(
      `[worker-scale] ${runs.length} runs, requests ${JSON.stringify(states)}, captures ${JSON.stringify(outcomes)}`,
    );
  }, 600_000);
});
