/**
 * The server side of `bench:api`, run as a child process so the load generator does not share its
 * event loop: starts the API (DATABASE_URL from the env, or in-memory PGlite), mints a tenant key,
 * seeds one session with summarized records, prints `{url,key}` as one JSON line, and runs until
 * its stdin closes.
 */
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { occKey, type SummaryEntry } from "@condense/core";
import {
  commitFlush,
  createFlushRequest,
  ensureTenant,
  createApiKey,
  insertCaptures,
  loadPendingCaptures,
  type Db,
  type RecordWrite,
} from "@condense/db";
import { loadApiEnv } from "../src/env.ts";
import { startServer } from "../src/server.ts";

const SEED_BATCHES = 50;
const CALLS_PER_BATCH = 4;

async function seed(db: Db, key: { tenantId: string; sessionId: string }): Promise<void> {
  const body = `${"x".repeat(1500)}\nline two\n`;
  const batches = Array.from({ length: SEED_BATCHES }, (_, b) => ({
    turnIndex: b,
    timestamp: 1_700_000_000_000 + b * 1000,
    assistantText: `turn ${b}`,
    // bash_7 is reused in every batch: a multi-occurrence recovery.
    toolCalls: Array.from({ length: CALLS_PER_BATCH }, (_, c) => ({
      toolCallId: c === 0 ? "bash_7" : `call_${b}_${c}`,
      toolName: "bash",
      args: { cmd: `run ${b} ${c}` },
      resultText: body,
      isError: false,
      resultTimestamp: 1_700_000_000_500 + b * 1000 + c,
    })),
  }));
  await insertCaptures(db, { ...key, captureId: "seed", batches });
  const req = await createFlushRequest(db, { ...key, trigger: "manual" });
  const pending = await loadPendingCaptures(db, { ...key, cursor: req.cursor });
  const res = await commitFlush(db, {
    ...key,
    flushRequestId: req.id,
    attempt: 1,
    mintRefs: pending.map((b) => b.toolCalls.map((c) => c.occurrenceKey)),
    writes: (m) => {
      const records: RecordWrite[] = [];
      const summaries: SummaryEntry[] = [];
      pending.forEach((b, i) => {
        const id = `bench-${i}`;
        summaries.push({
          id,
          text: `summary of turn ${b.turnIndex}: ${m.groups[i]!.join(", ")}`,
          refs: b.toolCalls.map((c, j) => ({
            shortId: m.groups[i]![j]!,
            toolCallId: c.toolCallId,
            resultTimestamp: c.resultTimestamp!,
          })),
          coverage: b.toolCalls.map((c) => c.occurrenceKey),
          toolNames: ["bash"],
          turnIndex: b.turnIndex,
          timestamp: b.timestamp,
        });
        b.toolCalls.forEach((c, j) =>
          records.push({
            key: occKey(c.toolCallId, c.resultTimestamp),
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            args: c.args,
            resultText: c.resultText,
            isError: false,
            turnIndex: b.turnIndex,
            timestamp: b.timestamp,
            resultTimestamp: c.resultTimestamp!,
            shortRef: m.groups[i]![j]!,
            summaryId: id,
          }),
        );
      });
      return {
        records,
        summaries,
        aliases: [],
        frontier: null,
        captures: pending.flatMap((b) =>
          b.toolCalls.map((c) => ({ key: c.occurrenceKey, status: "summarized" as const })),
        ),
        metrics: { outcome: "summarized" },
      };
    },
  });
  if (res.status !== "committed") throw new Error(`seed commit: ${res.status}`);
}

const server = await startServer({
  jobQueue: createInProcessQueue({ catalog: condenseJobs }),
  env: loadApiEnv({
    PORT: "0",
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "pglite:",
    CONDENSE_RATE_LIMIT_PER_SEC: "0",
    LOG_LEVEL: "silent",
  }),
});
await ensureTenant(server.db.db, { id: "bench" });
const { key } = await createApiKey(server.db.db, { tenantId: "bench" });
await seed(server.db.db, { tenantId: "bench", sessionId: "bench" });
process.stdout.write(`${JSON.stringify({ url: server.url, key, records: SEED_BATCHES * CALLS_PER_BATCH })}\n`);
process.stdin.resume();
process.stdin.on("close", () => void server.close().then(() => process.exit(0)));
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
