/**
 * The flush-session job (CAP-FLUSH, run by a worker): load the session's pending captures up to the
 * request's cursor, run the pre-flush stages (protected filter, frontier trim, content-hash dedup,
 * oversized storage, trivial skip: core's `planFlush`), reserve the refs, summarize the remaining
 * batches in parallel, assemble the result (core's `assembleFlush`) and commit it in one
 * transaction under the session lock (`commitFlush`), then compress chains.
 *
 * Failure semantics (see packages/worker/README.md): the batches before the first failed one are
 * committed; the failed batch and every later one stay pending, with the reason noted on their
 * capture rows. Nothing is written outside a commit, so nothing half-written is ever visible. A run
 * that processes zero batches records its `error` metrics row and throws, so the queue retries it.
 */
import { createHash } from "node:crypto";
import {
  assembleFlush,
  normalizeSettings,
  planFlush,
  callKey,
  type BatchPlan,
  type CondenseSettings,
  type FlushOutcome,
} from "@condense/core";
import {
  ConflictError,
  commitFlush,
  getFlushRequest,
  loadFlushRun,
  loadPendingForFlush,
  notePendingReason,
  recordFlushMetrics,
  reserveRefs,
  type Db,
  type FlushRequest,
} from "@condense/db";
import type { FlushSessionPayload } from "@condense/contract";
import { NonRetryableJobError } from "@condense/queue";
import type { Summarizer } from "@condense/summarizer";
import { runChainStage, type ChainStageResult } from "../chains/chain-stage.ts";
import type { FlushHooks } from "../crash-hooks.ts";
import { loadCanonicals } from "./dedup-canonicals.ts";
import { startFlushClock, type FlushClock, type FlushTimings } from "./flush-timings.ts";
import { buildFlushWrites, pendingKeys } from "./flush-writes.ts";
import { prepareBatches } from "./prepare-batches.ts";
import { summarizeBatches, type SummarizeOutcome } from "./summarize-batches.ts";
import type { SelectSummarizer, SelectedSummarizer } from "../summarizer-selection.ts";

export interface FlushDeps {
  db: Db;
  summarizer: Summarizer;
  /** Per-session summarizer choice; without it every session uses `summarizer`. */
  selectSummarizer?: SelectSummarizer;
  workerId: string;
  /** Summarizer calls in flight per flush (default 4). */
  batchConcurrency?: number;
  hooks?: FlushHooks;
}

export interface FlushJob {
  payload: FlushSessionPayload;
  attempt: number;
  maxAttempts: number;
  enqueuedAt: number;
  startedAt: number;
  signal: AbortSignal;
}

export interface FlushRunResult {
  status: "committed" | "already-committed" | "coalesced" | "empty";
  outcome?: FlushOutcome;
  version?: number;
  attempt?: number;
  refs?: Record<string, string>;
  pending?: number;
  chains?: ChainStageResult;
  /** Time per stage of this run (database, summarizer, planning). */
  timings?: FlushTimings;
}

export class SummarizerFailedError extends Error {
  constructor(readonly failures: { index: number; message: string }[]) {
    super(
      `summarization failed for every batch that needed it: ${failures
        .map((f) => f.message)
        .join("; ")
        .slice(0, 500)}`,
    );
    this.name = "SummarizerFailedError";
  }
}

/** Deterministic summary id: the same covered keys in the same session always get the same id. */
function summaryIdFor(tenantId: string, sessionId: string) {
  return (coverage: readonly string[]) =>
    `s_${createHash("sha256").update(tenantId).update("\0").update(sessionId).update("\0").update(coverage.join("\n")).digest("hex").slice(0, 24)}`;
}

const MAX_STALE_REPLANS = 3;

export async function runFlush(flushDeps: FlushDeps, job: FlushJob): Promise<FlushRunResult> {
  const started = performance.now();
  const clock = startFlushClock();
  const { db } = flushDeps;
  const { tenantId, sessionId, flushRequestId } = job.payload;
  const key = { tenantId, sessionId };
  // The request (with its attempt number and ref reservation) and the pending captures up to its
  // cursor: one statement. The captures go unused for a committed request.
  const { loaded, pending: firstPending } = await loadFlushRun(db, {
    ...key,
    flushRequestId,
    queueAttempt: job.attempt,
  });
  if (!loaded || loaded.request.sessionId !== sessionId)
    throw new NonRetryableJobError(`flush request ${flushRequestId} not found for ${tenantId}/${sessionId}`, {
      code: "not_found",
    });
  const { request, attempt } = loaded;
  const settings = normalizeSettings(request.settings);
  const chosen: SelectedSummarizer = flushDeps.selectSummarizer
    ? flushDeps.selectSummarizer(key, settings)
    : { summarizer: flushDeps.summarizer, source: "worker-default", primary: "configured" };
  const deps: FlushDeps = { ...flushDeps, summarizer: chosen.summarizer };

  // A re-delivery after the commit (crash before the ack, a stall): finish what may be missing.
  if (request.status === "committed") {
    clock.lap("load");
    const chains = await chainsAfterCommit(deps, request, settings, job.signal);
    clock.lap("chains");
    deps.hooks?.reached("before-ack");
    return { status: "already-committed", ...(chains ? { chains } : {}), timings: clock.done() };
  }
  clock.lap("load");
  const baseMetrics = {
    queueWaitMs: Math.max(0, job.startedAt - job.enqueuedAt),
    workerId: deps.workerId,
    summarizerSource: chosen.source,
    ...(chosen.notice ? { summarizerNotice: chosen.notice } : {}),
  };
  if (request.status === "coalesced") {
    // A later request of the session committed first and covered this cursor; the commit that
    // coalesced it already wrote its `coalesced` metrics row, so a late run adds nothing.
    clock.lap("commit");
    return { status: "coalesced", attempt, timings: clock.done() };
  }

  for (let round = 0; ; round++) {
    // A re-plan after a stale commit reads the captures again.
    const {
      batches: pending,
      indexed,
      seen,
      canonicalHints,
    } = round === 0 ? firstPending : await loadPendingForFlush(db, { ...key, flushRequestId });
    if (pending.length === 0) {
      clock.lap("pending");
      await recordFlushMetrics(db, {
        tenantId,
        flushRequestId,
        attempt,
        outcome: "empty",
        settle: "committed",
        ...baseMetrics,
        runMs: performance.now() - started,
      });
      clock.lap("commit");
      // A `roi` flush with nothing pending was asked for the chains it carries (their compression pays
      // on its own, the client's cost model says): its chain stage runs all the same.
      const fresh = chainOnly(request) ? await getFlushRequest(db, tenantId, flushRequestId) : null;
      const chains = fresh ? await chainsAfterCommit(deps, fresh, settings, job.signal) : undefined;
      if (fresh) clock.lap("chains");
      deps.hooks?.reached("before-ack");
      return { status: "empty", outcome: "empty", attempt, ...(chains ? { chains } : {}), timings: clock.done() };
    }
    clock.lap("pending");
    const { batches, trimmed } = prepareBatches(pending, indexed, settings);
    const canonicals = await loadCanonicals(db, key, batches, settings, canonicalHints);
    clock.lap("canonicals");
    const plan = planFlush({
      batches,
      settings,
      canonicalByHash: canonicals.byHash,
      foreignByHash: canonicals.foreign,
    });
    const toReserve = plan.batches.filter((b) => b.kind === "summarize").map((b) => b.calls.map((c) => callKey(c)));
    clock.lap("plan");
    // The reservation runs while the summarizer's model calls do: they need the refs only to write
    // them into the answer (summarize-batches.ts). A failed reservation stops the calls and fails the
    // run as before (the queue retries it); nothing is committed without both.
    const { reservation, summarized } = await reserveWhileSummarizing(
      deps,
      job,
      plan.batches,
      clock,
      toReserve.length === 0
        ? null
        : () =>
            reserveRefs(db, {
              ...key,
              flushRequestId,
              keys: toReserve,
              ...(round === 0 ? { known: loaded.refReservation } : {}),
            }),
    );
    deps.hooks?.reached("after-summarize");
    const assembled = assembleFlush({
      plan,
      results: summarized.results,
      summaryId: summaryIdFor(tenantId, sessionId),
    });
    clock.lap("assemble");

    if (batches.length > 0 && assembled.processedBatches === 0) {
      // CAP-FLUSH-7: zero processed -> outcome error, no frontier, nothing committed; the queue retries.
      const last = job.attempt >= job.maxAttempts;
      await notePendingReason(db, { ...key, keys: pendingKeys(assembled), reason: "summarizer-failed" });
      await recordFlushMetrics(db, {
        tenantId,
        flushRequestId,
        attempt,
        outcome: "error",
        reason: "summarizer-failed",
        capturedBatches: batches.length,
        dedupHits: plan.dedupHits,
        ...baseMetrics,
        runMs: performance.now() - started,
        ...(last ? { settle: "failed" as const } : {}),
      });
      throw new SummarizerFailedError(summarized.errors);
    }

    const writes = buildFlushWrites({
      plan,
      assembled,
      details: summarized.details,
      trimmed,
      metrics: { capturedBatches: batches.length, ...baseMetrics, runMs: performance.now() - started },
    });
    if (batches.length === 0)
      writes.metrics = {
        ...writes.metrics,
        outcome: "empty",
        reason: "all pending captures were already indexed or protected",
      };
    const commit = await commitFlush(db, {
      ...key,
      flushRequestId,
      attempt,
      mintRefs: [],
      // The session as read with the captures: the commit applies only if no other commit came since.
      ...(seen ? { seen } : {}),
      writes: () => {
        deps.hooks?.reached("in-commit");
        return writes;
      },
    });
    clock.lap("commit");
    if (commit.status === "stale") {
      // Another run of this session committed meanwhile (a stalled duplicate): plan again from the rows.
      // A conflict that outlasts the re-plans is left to the queue's retry (a later attempt reads afresh).
      if (round + 1 >= MAX_STALE_REPLANS)
        throw new ConflictError(`flush ${flushRequestId} stayed stale after ${MAX_STALE_REPLANS} plans`);
      continue;
    }
    const left = pendingKeys(assembled);
    if (left.length > 0) await notePendingReason(db, { ...key, keys: left, reason: "summarizer-failed" });
    deps.hooks?.reached("after-commit");
    // The chain stage reads the committed request (its stored result); most flushes carry no chains.
    const hasChains = Array.isArray(request.chains) && request.chains.length > 0;
    const fresh = hasChains ? await getFlushRequest(db, tenantId, flushRequestId) : null;
    const chains = fresh ? await chainsAfterCommit(deps, fresh, settings, job.signal) : undefined;
    clock.lap("chains");
    deps.hooks?.reached("before-ack");
    return {
      status: commit.status,
      outcome: batches.length === 0 ? "empty" : assembled.outcome,
      version: commit.version,
      attempt,
      refs: Object.fromEntries(
        [...reservation.byKey].filter(([k]) =>
          assembled.dispositions.some((d) => d.key === k && d.status === "summarized"),
        ),
      ),
      pending: left.length,
      ...(chains ? { chains } : {}),
      timings: clock.done(),
    };
  }
}

/**
 * Reserve refs and summarize concurrently. Timing: the reservation counts as its own stage only for
 * the time the summarizer spent waiting on it (from the first batch asking for its refs, or the
 * summarizer finishing, to the reservation's end); the rest of the overlap is the summarizer's.
 */
async function reserveWhileSummarizing(
  deps: FlushDeps,
  job: FlushJob,
  batches: readonly BatchPlan[],
  clock: FlushClock,
  reserve: (() => Promise<{ byKey: ReadonlyMap<string, string> }>) | null,
): Promise<{ reservation: { byKey: ReadonlyMap<string, string> }; summarized: SummarizeOutcome }> {
  const opts = { concurrency: deps.batchConcurrency ?? 4 };
  if (!reserve) {
    // no batch to summarize asks for refs
    const summarized = await summarizeBatches(deps.summarizer, batches, () => Promise.resolve(new Map()), {
      ...opts,
      signal: job.signal,
    });
    clock.lap("summarize");
    return { reservation: { byKey: new Map() }, summarized };
  }
  const stop = new AbortController();
  const signal = AbortSignal.any([job.signal, stop.signal]);
  let reservedAt = 0;
  let askedAt = Infinity;
  const reservation = reserve().then((r) => {
    reservedAt = performance.now();
    return r;
  });
  reservation.catch((err: unknown) => stop.abort(err));
  const refs = () => {
    askedAt = Math.min(askedAt, performance.now());
    return reservation.then((r) => r.byKey);
  };
  let summarizedAt = Infinity;
  const summarizing = summarizeBatches(deps.summarizer, batches, refs, { ...opts, signal }).finally(() => {
    summarizedAt = performance.now();
  });
  const [r, summarized] = await Promise.all([reservation, summarizing]);
  clock.split("reserve", Math.max(0, reservedAt - Math.min(askedAt, summarizedAt)), "summarize");
  return { reservation: r, summarized };
}

/**
 * A `roi` request that carries chains: the client's cost model asked for it when compressing them
 * pays, pending results or not, so its chain stage runs even when the flush found nothing pending.
 */
const chainOnly = (request: FlushRequest): boolean =>
  request.trigger === "roi" && Array.isArray(request.chains) && request.chains.length > 0;

/**
 * CAP-CHAIN-2: compression runs only after a flush that persisted a frontier; departure: and after a
 * `roi` flush with nothing pending that carries chains (docs/architecture.md).
 */
async function chainsAfterCommit(
  deps: FlushDeps,
  request: FlushRequest,
  settings: CondenseSettings,
  signal: AbortSignal,
): Promise<ChainStageResult | undefined> {
  const result = request.result as { written?: { frontier?: boolean } } | null;
  if (!result?.written?.frontier && !chainOnly(request)) return undefined;
  return runChainStage(
    { db: deps.db, summarizer: deps.summarizer, ...(deps.hooks ? { hooks: deps.hooks } : {}) },
    request,
    settings,
    signal,
  );
}
