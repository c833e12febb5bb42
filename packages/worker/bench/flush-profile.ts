/**
 * The in-process flush profile: sequential flushes of one session through `runFlush` (no queue),
 * against a counted database, so each stage's wall time and the statements and round trips it sent
 * can be read side by side. The summarizer is whatever the caller passes (its time is its own stage).
 */
import { createFlushRequest, insertCaptures } from "@condense/db";
import type { Summarizer } from "@condense/summarizer";
import { runFlush, type FlushStage } from "../src/index.ts";
import type { CountedDb } from "./counted-db.ts";

export interface FlushProfile {
  flushes: number;
  /** p50 ms per stage and of the whole run. */
  stageP50: Partial<Record<FlushStage | "total", number>>;
  /** Statements per flush (median) and per stage (median). */
  statements: number;
  statementsByStage: Partial<Record<FlushStage, number>>;
  transactions: number;
  /** Statements + 2 per transaction (BEGIN, COMMIT): the flush's sequential round trips at most. */
  roundTripsUpperBound: number;
  /** The distinct statement texts of the last flush, in order (shortened). */
  sample: string[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};

export async function profileFlushes(
  counted: CountedDb,
  summarizer: Summarizer,
  input: {
    tenantId: string;
    sessionId: string;
    flushes: number;
    batchFor: (i: number) => Parameters<typeof insertCaptures>[1]["batches"];
  },
): Promise<FlushProfile> {
  const { db } = counted;
  const stageRows: Partial<Record<FlushStage | "total", number>>[] = [];
  const stmtRows: { total: number; tx: number; byStage: Partial<Record<FlushStage, number>> }[] = [];
  let sample: string[] = [];
  for (let i = 0; i < input.flushes; i++) {
    await insertCaptures(db, {
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      captureId: `p${i}`,
      batches: input.batchFor(i),
    });
    const req = await createFlushRequest(db, {
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      trigger: "budget",
    });
    counted.reset();
    const result = await runFlush(
      { db, summarizer, workerId: "profile" },
      {
        payload: { tenantId: input.tenantId, sessionId: input.sessionId, flushRequestId: req.id, cursor: req.cursor },
        attempt: 1,
        maxAttempts: 5,
        enqueuedAt: Date.now(),
        startedAt: Date.now(),
        signal: new AbortController().signal,
      },
    );
    const t = result.timings!;
    stageRows.push({ ...t.stages, total: t.total });
    // Attribute each statement to the stage whose window contains its send time.
    const bounds: [FlushStage, number][] = [];
    let acc = t.startedAt;
    for (const [stage, ms] of Object.entries(t.stages) as [FlushStage, number][]) {
      acc += ms;
      bounds.push([stage, acc]);
    }
    const byStage: Partial<Record<FlushStage, number>> = {};
    for (const s of counted.statements) {
      const stage = bounds.find(([, end]) => s.at <= end)?.[0] ?? bounds[bounds.length - 1]?.[0];
      if (stage) byStage[stage] = (byStage[stage] ?? 0) + 1;
    }
    stmtRows.push({ total: counted.statements.length, tx: counted.transactions, byStage });
    sample = counted.statements.map((s) => s.sql.replace(/\s+/g, " ").slice(0, 110));
  }
  const stages = new Set(stageRows.flatMap((r) => Object.keys(r))) as Set<FlushStage | "total">;
  const stageP50 = Object.fromEntries([...stages].map((k) => [k, median(stageRows.map((r) => r[k] ?? 0))]));
  const stmtStages = new Set(stmtRows.flatMap((r) => Object.keys(r.byStage))) as Set<FlushStage>;
  const statements = median(stmtRows.map((r) => r.total));
  const transactions = median(stmtRows.map((r) => r.tx));
  return {
    flushes: input.flushes,
    stageP50,
    statements,
    transactions,
    roundTripsUpperBound: statements + 2 * transactions,
    statementsByStage: Object.fromEntries(
      [...stmtStages].map((k) => [k, median(stmtRows.map((r) => r.byStage[k] ?? 0))]),
    ),
    sample,
  };
}
