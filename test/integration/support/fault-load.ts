/**
 * The load the fault suites run while a service goes down: sessions that capture tool calls and ask
 * for flushes, round after round, behaving like the client and API do. A capture POST is retried
 * until acknowledged (committed); a flush request is retried, under the same client-chosen id, until
 * its row is written (that is what the API acknowledges); the enqueue after it is best effort, as in
 * the API, because the requeue sweeper picks up a recorded request whose job never made it.
 * Every failed attempt is counted with its time, so a test can prove its outage hit the load.
 */
import { randomUUID } from "node:crypto";
import type { CapturedBatch } from "@condense/core";
import { createFlushRequest, insertCaptures, type Db } from "@condense/db";
import type { CondenseJobs, JobQueue } from "@condense/queue";

export interface FaultLoadOptions {
  db: Db;
  queue: JobQueue<CondenseJobs>;
  tenantId: string;
  sessions: number;
  rounds: number;
  /** Pause between rounds. */
  pauseMs: number;
  /** Pause between retries of a failed capture or request write. */
  retryMs?: number;
  /** The load gives up (and `done` rejects) after this long. */
  timeoutMs: number;
}

export interface FaultLoadStats {
  capturesAcked: number;
  requestsRecorded: number;
  enqueued: number;
  captureFailures: number;
  requestFailures: number;
  enqueueFailures: number;
  finished: boolean;
}

export interface FaultLoad {
  /** Resolves when every round's captures and flush requests are acknowledged. */
  done: Promise<void>;
  stats(): FaultLoadStats;
  /** Failed attempts (capture, request write or enqueue) at or after `sinceMs` (epoch). */
  failuresSince(sinceMs: number): { capture: number; request: number; enqueue: number };
  /** Stop retrying; `done` rejects. Used by cleanup when a test fails mid-load. */
  abort(): void;
}

/** Two tool calls per session and round, each with a result long enough to be worth condensing. */
export function loadBatches(session: number, round: number): CapturedBatch[] {
  const t = 1_700_000_000_000 + round * 10_000;
  return [
    {
      turnIndex: round,
      timestamp: t,
      assistantText: `r${round}`,
      toolCalls: [0, 1].map((k) => ({
        toolCallId: `s${session}r${round}c${k}`,
        toolName: "bash",
        args: { k },
        resultText: `s${session}r${round}c${k} ${"line\n".repeat(300)}`,
        isError: false,
        resultTimestamp: t + k,
      })),
    },
  ];
}

export const CAPTURES_PER_ROUND_AND_SESSION = 2;

export function startFaultLoad(o: FaultLoadOptions): FaultLoad {
  const retryMs = o.retryMs ?? 200;
  const deadline = Date.now() + o.timeoutMs;
  const failures: { kind: "capture" | "request" | "enqueue"; at: number; err: string }[] = [];
  const s: FaultLoadStats = {
    capturesAcked: 0,
    requestsRecorded: 0,
    enqueued: 0,
    captureFailures: 0,
    requestFailures: 0,
    enqueueFailures: 0,
    finished: false,
  };
  let aborted = false;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function untilAcked(kind: "capture" | "request", what: string, attempt: () => Promise<unknown>): Promise<void> {
    for (;;) {
      if (aborted) throw new Error(`fault load aborted while retrying ${what}`);
      try {
        await attempt();
        return;
      } catch (err) {
        failures.push({ kind, at: Date.now(), err: String(err) });
        if (kind === "capture") s.captureFailures++;
        else s.requestFailures++;
        if (Date.now() > deadline)
          throw new Error(
            `fault load: ${what} still not acknowledged after ${o.timeoutMs} ms; last error: ${String(err)}`,
          );
        await sleep(retryMs);
      }
    }
  }

  async function session(i: number, round: number): Promise<void> {
    const sessionId = `sess-${i}`;
    await untilAcked("capture", `capture ${sessionId} r${round}`, () =>
      insertCaptures(o.db, { tenantId: o.tenantId, sessionId, captureId: `r${round}`, batches: loadBatches(i, round) }),
    );
    s.capturesAcked += CAPTURES_PER_ROUND_AND_SESSION;
    const id = randomUUID();
    let request: { id: string; cursor: number } | undefined;
    await untilAcked("request", `flush request ${sessionId} r${round}`, async () => {
      request = await createFlushRequest(o.db, {
        id,
        tenantId: o.tenantId,
        sessionId,
        trigger: "budget",
        metrics: { frontierGapTokens: 1 },
      });
    });
    s.requestsRecorded++;
    try {
      await o.queue.enqueue("flush-session", {
        tenantId: o.tenantId,
        sessionId,
        flushRequestId: request!.id,
        cursor: request!.cursor,
      });
      s.enqueued++;
    } catch (err) {
      failures.push({ kind: "enqueue", at: Date.now(), err: String(err) });
      s.enqueueFailures++;
    }
  }

  const done = (async () => {
    for (let r = 0; r < o.rounds; r++) {
      await Promise.all(Array.from({ length: o.sessions }, (_, i) => session(i, r)));
      if (r < o.rounds - 1) await sleep(o.pauseMs);
    }
    s.finished = true;
  })();
  done.catch(() => {}); // observed by the test through `done`; never an unhandled rejection

  return {
    done,
    stats: () => ({ ...s }),
    failuresSince: (since) => {
      const n = { capture: 0, request: 0, enqueue: 0 };
      for (const f of failures) if (f.at >= since) n[f.kind]++;
      return n;
    },
    abort: () => {
      aborted = true;
    },
  };
}
