/**
 * Crash safety with real processes: worker processes are SIGKILLed at chosen and random points of
 * flush runs (after the summarizer call, inside the flush commit, after it, inside the chain commit,
 * before the ack), respawned, and BullMQ re-delivers their jobs. The database must end up with
 * exactly the rows of a clean run of the same workload (normalized: no timestamps, worker ids,
 * attempt numbers, sequence numbers).
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDb, ensureTenant, getFlushRequest, migrateDb, type DbHandle } from "@condense/db";
import { condenseJobs, createBullmqQueue } from "@condense/queue";
import type { CapturedBatch } from "@condense/core";
import { dumpRows } from "@condense/test-support/row-dump";
import { refsMintedTwice } from "./support/fleet-checks.ts";
import {
  captureBatches,
  dropRedisPrefix,
  requestAndEnqueue,
  scratchDatabase,
  spawnWorker,
  stopWorker,
  waitUntil,
  type WorkerProc,
} from "./support/worker-fleet.ts";

const pgAdmin = inject("databaseUrl").startsWith("postgres") ? inject("databaseUrl") : "";
const redisUrl = inject("redisUrl");
if (!pgAdmin || !redisUrl) console.warn("\n!!! worker-crash: needs real Postgres and Redis; SKIPPED !!!\n");

const TENANT = "crash";
const SESSIONS = 16;
const ROUNDS = 3;

function roundBatches(s: number, r: number): CapturedBatch[] {
  const t = 1_700_000_000_000 + r * 10_000;
  const out = (id: string, n: number) => `${id} ${"output line\n".repeat(Math.ceil(n / 12))}`.slice(0, n);
  return [
    {
      turnIndex: 2 * r,
      timestamp: t,
      assistantText: `round ${r}`,
      toolCalls: [0, 1].map((k) => ({
        toolCallId: `s${s}r${r}c${k}`,
        toolName: "bash",
        args: { k },
        resultText: out(`s${s}r${r}c${k}`, 1400 + 50 * k),
        isError: false,
        resultTimestamp: t + k,
      })),
    },
    {
      turnIndex: 2 * r + 1,
      timestamp: t + 5,
      assistantText: "",
      toolCalls: [
        {
          toolCallId: `s${s}r${r}tiny`,
          toolName: "ls",
          args: {},
          resultText: "x y z",
          isError: false,
          resultTimestamp: t + 5,
        },
      ],
    },
  ];
}

/** Round 2 asks to compress round 0 (covered) and round 1's tiny call (uncovered: backfill). */
function chainsFor(s: number, r: number): unknown[] {
  if (r !== 2) return [];
  const t = (rr: number) => 1_700_000_000_000 + rr * 10_000;
  return [
    {
      startUserTimestamp: t(0) - 1,
      finalAssistantTimestamp: t(0) + 9,
      middleToolCallIds: [`s${s}r0c0`, `s${s}r0c1`],
      middleOccurrenceKeys: [`s${s}r0c0@${t(0)}`, `s${s}r0c1@${t(0) + 1}`],
    },
    {
      startUserTimestamp: t(1) + 4,
      finalAssistantTimestamp: t(1) + 9,
      middleToolCallIds: [`s${s}r1tiny`],
      middleOccurrenceKeys: [`s${s}r1tiny@${t(1) + 5}`],
    },
  ];
}

interface RunStats {
  kills: number;
  respawns: number;
}

async function runWorkload(pgUrl: string, crashSpecs: string[]): Promise<{ handle: DbHandle; stats: RunStats }> {
  const handle = await createDb(pgUrl, { max: 10 });
  await migrateDb(handle);
  await ensureTenant(handle.db, { id: TENANT });
  const prefix = `condense-crash-${randomBytes(4).toString("hex")}`;
  const producer = await createBullmqQueue({ catalog: condenseJobs, redisUrl, prefix });
  const specs = [...crashSpecs];
  const stats: RunStats = { kills: 0, respawns: 0 };
  const live = new Set<WorkerProc>();
  let stopping = false;
  let n = 0;
  const start = () => {
    const spec = specs.shift();
    const w = spawnWorker(`w${++n}`, {
      DATABASE_URL: pgUrl,
      REDIS_URL: redisUrl,
      CONDENSE_REDIS_PREFIX: prefix,
      WORKER_CONCURRENCY: "4",
      CONDENSE_MIGRATE: "false",
      WORKER_LOCK_MS: "1500",
      WORKER_STALLED_INTERVAL_MS: "500",
      CONDENSE_REQUEUE_AFTER_MS: "4000",
      CONDENSE_REQUEUE_INTERVAL_MS: "1000",
      ...(spec ? { CONDENSE_CRASH_AT: spec } : {}),
    });
    live.add(w);
    void w.exited.then(({ signal }) => {
      live.delete(w);
      if (signal === "SIGKILL") stats.kills++;
      if (!stopping) {
        stats.respawns++;
        start();
      }
    });
    return w;
  };
  const first = [start(), start()];
  await Promise.all(first.map((w) => w.ready));
  try {
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        for (let r = 0; r < ROUNDS; r++) {
          await captureBatches(handle.db, TENANT, `sess-${s}`, `r${r}`, roundBatches(s, r));
          const chains = chainsFor(s, r);
          const req = await requestAndEnqueue(handle.db, producer, TENANT, `sess-${s}`, {
            settings: { chainCompression: { rollingWindow: 0 } },
            chains,
          });
          await waitUntil(
            async () => {
              const cur = await getFlushRequest(handle.db, TENANT, req.id);
              return cur?.status === "committed" && (chains.length === 0 || cur.chainsResult !== null);
            },
            240_000,
            `request ${req.id} of sess-${s} round ${r}`,
            100,
          );
        }
      }),
    );
  } finally {
    stopping = true;
    await Promise.all([...live].map((w) => stopWorker(w)));
    await producer.close(1000);
    await dropRedisPrefix(redisUrl, prefix);
  }
  return { handle, stats };
}

describe.skipIf(!pgAdmin || !redisUrl)("worker crashes (SIGKILL at chosen and random points)", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  }, 120_000);

  it("a retried run leaves the same rows as a clean run", async () => {
    const cleanPg = await scratchDatabase(pgAdmin);
    cleanups.push(() => cleanPg.drop());
    const clean = await runWorkload(cleanPg.url, []);
    cleanups.push(() => clean.handle.close());
    expect(clean.stats.kills).toBe(0);

    const crashPg = await scratchDatabase(pgAdmin);
    cleanups.push(() => crashPg.drop());
    // Each spec kills one worker process once; its replacement takes the next spec. The chosen points
    // come first, then random points ("any" with a probability), then clean replacements.
    const specs = [
      "after-summarize:#2",
      "in-commit:#1",
      "after-commit:#2",
      "in-chain-commit:#1",
      "before-ack:#3",
      "in-commit:#3",
      "after-commit:#1",
      "before-ack:#1",
      "any:0.08",
      "any:0.08",
      "any:0.08",
      "any:0.08",
      "any:0.08",
      "any:0.08",
    ];
    const crashed = await runWorkload(crashPg.url, specs);
    cleanups.push(() => crashed.handle.close());
    console.log(`[worker-crash] kills=${crashed.stats.kills} respawns=${crashed.stats.respawns}`);
    expect(crashed.stats.kills).toBeGreaterThanOrEqual(8);

    expect(await refsMintedTwice(crashPg.url)).toEqual([]);
    const a = await dumpRows(clean.handle.db);
    const b = await dumpRows(crashed.handle.db);
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    expect(a.chains!.length).toBe(SESSIONS * 2);
    expect(a.flush_metrics!.length).toBe(SESSIONS * ROUNDS);
  }, 900_000);
});
