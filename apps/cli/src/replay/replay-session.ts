/**
 * `replaySession`: plays a recorded session through the real pipeline as the pi extension would
 * drive it, turn by turn. Before every model call the branch is rendered by the client (against the
 * state it mirrors from the API); after every turn the finished tool calls are captured and the
 * trigger policy decides whether to ask for a flush. A flush goes client -> API -> queue -> worker ->
 * summarizer -> Postgres/PGlite, and the replay waits for its whole job (the chain stage included)
 * before the next call (as if the summarizer kept pace with the agent), then delivers the new
 * summaries into the branch.
 *
 * Measured per model call: the raw context (what the agent sent without Condense) and the rendered
 * one, both as chars/4 tokens of the JSON message array, plus their cache-aware input cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { CondenseHttpError, createCondenseClient, type CondenseClient } from "@condense/client";
import {
  arrayChars,
  createSizeMemo,
  isAssistant,
  isToolResult,
  occurrenceKeysOf,
  optimalSchedule,
  scheduleCost,
  summariesOnBranch,
  tokensOfChars,
  toolCallsOf,
  type AgentMessage,
} from "@condense/core";
import { openMigratedMemoryPglite, setPgliteWasmTier, templateCacheDirs } from "@condense/db";
import { startSingleProcessService, type SingleProcessService } from "@condense/service";
import { CacheCostMeter, type CacheTally } from "./cache-cost.ts";
import type { LoadedSession } from "./load-session.ts";
import { scheduleSessionOf } from "./oracle-input.ts";
import { recordedContext } from "./recorded-baseline.ts";
import { pairingViolations } from "./pairing-check.ts";
import type { ModelPrice } from "./price-model.ts";
import { summaryMessage } from "./summary-messages.ts";

export interface ReplayOptions {
  /** Keep the service's data here (reused across runs); default: a temporary directory, removed after. */
  dataDir?: string;
  /** Worker env for the summarizer (CONDENSE_SUMMARIZER_MODEL / _FALLBACK_MODEL / _CONFIG). */
  summarizerEnv?: Record<string, string | undefined>;
  price: ModelPrice;
  /** Context window the trigger policy sees (budget triggers); default: the price model's. */
  contextWindow?: number;
  /** Session settings for the client (e.g. `{autoBudgetThreshold: 0.3}`); default: Condense's defaults. */
  settings?: unknown;
  /** Longest wait for one flush to be committed. */
  flushTimeoutMs?: number;
  onProgress?: (p: ReplayProgress) => void;
  /**
   * Replay the oracle's best schedule through the same pipeline and meter (a second replay), so that
   * the policy's share of it compares two replayed bills; default true. Off: the share stays in the
   * oracle's turn model only.
   */
  replayOracle?: boolean;
  /**
   * Flush after exactly these turns (0-based request index whose answer ends the turn) instead of by
   * the trigger policy: the automatic triggers are off and each flush is asked for as the policy's
   * would be (landing a request later inside the agent's loop, before the next prompt after a reply).
   */
  flushSchedule?: readonly number[];
  /**
   * Internal (the "as recorded" replay): the client is driven on the context the host actually sent.
   * At each host compaction the branch becomes the host's compacted context, the client is told the
   * next request is cold (`markCold("host-compaction")`, as the pi extension does on
   * `session_compact`), and every request is billed against what the host sent, not the full history.
   */
  followHostCompactions?: boolean;
}

export interface ReplayProgress {
  call: number;
  calls: number;
  flushes: number;
  rawTokens: number;
  condensedTokens: number;
}

export interface CallSample {
  /** 1-based model call number. */
  call: number;
  messages: number;
  rawTokens: number;
  condensedTokens: number;
  /** What this request (input and output) cost without Condense, as recorded, and condensed. */
  rawCostUsd: number;
  recordedCostUsd: number;
  condensedCostUsd: number;
  rawWriteTokens: number;
  condensedWriteTokens: number;
}

/** Condense against one baseline: positive = Condense cost less. */
export interface Saving {
  baselineUsd: number;
  savedUsd: number;
  savedPct: number;
}

export interface OracleReport {
  /** Costs under the oracle's turn model (same summaries, same cache model). */
  noneUsd: number;
  policyUsd: number;
  oracleUsd: number;
  /** In the turn model: the policy's saving over the oracle's, both against no flush. */
  modelShare: number;
  /**
   * The oracle's schedule replayed through the same pipeline and meter as the policy (null when not
   * replayed): its bill (summarizer included) and its saving against no compaction.
   */
  replayed: { costUsd: number; savedUsd: number; savedPct: number; flushes: number } | null;
  /**
   * The policy's saving as a share of the oracle schedule's, both as replayed (the turn model's
   * share when the oracle was not replayed). Above 1 where the replay rewards the policy's schedule
   * more than the model-optimal one.
   */
  share: number;
  policyFlushes: number[];
  oracleFlushes: number[];
}

export interface ReplayResult {
  file: string;
  format: string;
  sessionId: string;
  messages: number;
  skippedLines: { line: number; reason: string }[];
  warnings: string[];
  calls: CallSample[];
  totals: {
    /** Sums over every model call (what is billed). */
    rawTokens: number;
    condensedTokens: number;
    reclaimedTokens: number;
    reclaimPct: number;
    /** The context of the last call. */
    finalRawTokens: number;
    finalCondensedTokens: number;
    finalReclaimPct: number;
  };
  flushes: { requested: number; timedOut: number };
  summarizer: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
  captures: Record<string, number>;
  dedupHits: number;
  summaries: number;
  chainsCompressed: number;
  cost: {
    priceModel: string;
    cacheTtlMs: number;
    /** No compaction at all: the full history sent every request. */
    raw: CacheTally;
    /** As recorded: the host's own compactions applied where they happened. */
    recorded: CacheTally;
    hostCompactions: number;
    condensed: CacheTally;
    /**
     * Condense on top of the host's compactions (what is compared against "as recorded"): a second
     * replay whose client saw the host's compacted context after each compaction and decided its
     * flushes there; the same as `condensed` when the host never compacted.
     */
    condensedOnRecorded: CacheTally;
    /** That replay's summarizer bill (included in `vsRecorded`). */
    summarizerOnRecordedUsd: number;
    summarizerUsd: number;
    /** Against no compaction (kept under these names for existing readers). */
    savedUsd: number;
    savedPct: number;
    vsNoCompaction: Saving;
    vsRecorded: Saving;
  };
  /** 1-based calls after which the policy asked for a flush. */
  flushAtCalls: number[];
  oracle: OracleReport;
  /** Shadow mode: the requests really sent (the raw ones), and the calls where they differed from raw (must be none). */
  shadow: { on: boolean; sent: CacheTally; mismatchedCalls: number[] };
  invariantViolations: string[];
  renderFailures: string[];
  durationMs: number;
}

/** The session's status, or {} while the service has no row for it yet (nothing captured so far). */
async function statusOf(c: CondenseClient): Promise<Record<string, unknown>> {
  try {
    return await c.status();
  } catch (err) {
    if (err instanceof CondenseHttpError && err.status === 404) return {};
    throw err;
  }
}

/**
 * The policy's replayed saving over the oracle schedule's replayed saving. Where the oracle's schedule
 * saves nothing (or loses) as replayed, a policy that loses nothing has reached it (1).
 */
function replayedShare(policySavedUsd: number, oracleSavedUsd: number): number {
  if (oracleSavedUsd > 1e-12) return policySavedUsd / oracleSavedUsd;
  return policySavedUsd >= -1e-12 ? 1 : 0;
}

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

export async function replaySession(session: LoadedSession, options: ReplayOptions): Promise<ReplayResult> {
  const started = Date.now();
  const result = await onOwnService(options, options.dataDir, (host) => replayOn(host, session, options, ""));
  // "As recorded": where the host compacted, a second replay whose client follows the host's context
  // (the flushes it decides there are the ones a client on that host would have made). On a throwaway
  // service of its own, so a `dataDir` holds only the replay asked for. (Sessions on one service are
  // isolated: the hang once seen here was the first client's close closing the shared service.)
  if (session.compactions.length > 0 && !options.flushSchedule && !options.followHostCompactions) {
    const { onProgress: _quiet, dataDir: _own, ...same } = options;
    const h = await onOwnService(options, undefined, (host) =>
      replayOn(host, session, { ...same, replayOracle: false, followHostCompactions: true }, "-host"),
    );
    const c = result.cost;
    c.condensedOnRecorded = { ...h.cost.condensed };
    c.summarizerOnRecordedUsd = h.cost.summarizerUsd;
    c.vsRecorded = saving(c.recorded.costUsd, h.cost.condensed.costUsd + h.cost.summarizerUsd);
  }
  // The services' starts count in the replay's time.
  return { ...result, durationMs: Date.now() - started };
}

/** Condense against a baseline of `baselineUsd` when Condense cost `withCondenseUsd`. */
function saving(baselineUsd: number, withCondenseUsd: number): Saving {
  return {
    baselineUsd,
    savedUsd: baselineUsd - withCondenseUsd,
    savedPct: pct(baselineUsd - withCondenseUsd, baselineUsd),
  };
}

/** Runs `run` on an embedded service of its own (data in `dataDir`, or in memory), closed after. */
async function onOwnService<T>(
  options: ReplayOptions,
  dataDirOption: string | undefined,
  run: (host: SingleProcessService) => Promise<T>,
): Promise<T> {
  const ownDir = dataDirOption === undefined;
  const dataDir = dataDirOption ?? mkdtempSync(join(tmpdir(), "condense-replay-"));
  // A replay is a short burst of statements: V8's optimizing recompile of Postgres would cost more CPU
  // than it saves (pglite-wasm-tier.ts; the README sample: 4.1-4.4 s of wall time with it, 3.4-3.6 without).
  setPgliteWasmTier("baseline");
  // A throwaway database in memory, loaded migrated from a cached tarball (made at install, or in a
  // child process) instead of an initdb: no directory of thousands of files to copy in and remove again.
  const memoryDb = ownDir ? await openMigratedMemoryPglite(templateCacheDirs()) : undefined;
  const host = await startSingleProcessService({
    dataDir,
    role: "condense replay",
    env: { ...(options.summarizerEnv ?? {}), CONDENSE_WORKER_CONCURRENCY: "2" },
    ...(memoryDb ? { db: memoryDb } : {}),
  }).catch(async (err: unknown) => {
    await memoryDb?.close().catch(() => {});
    throw err;
  });
  try {
    return await run(host);
  } finally {
    await host.close().catch(() => {});
    await memoryDb?.close().catch(() => {});
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * One replay of `session` on a running embedded service, as its own session (`suffix` tells a second
 * replay on the same service apart: the oracle's schedule replays beside the policy's, not on a
 * second service).
 */
async function replayOn(
  host: SingleProcessService,
  session: LoadedSession,
  options: ReplayOptions,
  suffix: string,
): Promise<ReplayResult> {
  const started = Date.now();
  const sessionId = `replay-${basename(session.file)
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .slice(0, 80)}-${started.toString(36)}${suffix}`;
  const contextWindow = options.contextWindow ?? options.price.contextWindow;
  const flushTimeoutMs = options.flushTimeoutMs ?? 120_000;
  const messages = session.messages;
  const followHost = options.followHostCompactions === true;
  const totalCalls = messages.filter(isAssistant).length;

  let clock = messages[0]?.timestamp ?? Date.now();
  let client: CondenseClient | undefined;
  try {
    const forced = options.flushSchedule ? new Set(options.flushSchedule) : null;
    // A forced schedule turns the automatic triggers off (no reply trigger, no roi gate, no budget).
    const settings = forced
      ? {
          ...((options.settings ?? {}) as Record<string, unknown>),
          pruneOn: "on-demand",
          autoBudgetThreshold: null,
          budgetTurnDelta: null,
        }
      : options.settings;
    client = createCondenseClient({
      sessionId,
      host,
      ...(settings !== undefined ? { settings } : {}),
      // The replay pulls state itself after each flush; no background stream or polling.
      sse: false,
      pollMs: 3_600_000,
      now: () => clock,
    });
    await client.start([], { syncTimeoutMs: 30_000 });

    const branch: AgentMessage[] = [];
    const raw: AgentMessage[] = [];
    const delivered = new Set<string>();
    const ttlMs = client.settings.cacheTtlMs;
    const rawMeter = new CacheCostMeter(options.price, ttlMs);
    const recordedMeter = new CacheCostMeter(options.price, ttlMs);
    const condensedMeter = new CacheCostMeter(options.price, ttlMs);
    const recordedMemo = createSizeMemo();
    const sentMeter = new CacheCostMeter(options.price, ttlMs);
    const shadowMismatches: number[] = [];
    const outputs: number[] = [];
    const policyTurns: number[] = [];
    let lastCall: { read: number; write: number } = { read: 0, write: 0 };
    const flushAtCalls: number[] = [];
    const rawMemo = createSizeMemo();
    const calls: CallSample[] = [];
    const violations: string[] = [];
    const renderFailures: string[] = [];
    let flushes = 0;
    let timedOut = 0;
    let turnIndex = 0;
    let lastCondensedTokens: number | null = null;
    let landing = false;
    let compactionsApplied = 0;
    // The context the baseline sent for the current full-history prefix `raw`: the full history, or,
    // when following the host, what the host sent (its compacted context, then what came after).
    const baseline = (): readonly AgentMessage[] => (followHost ? recordedContext(raw, session.compactions) : raw);

    const deliver = (c: CondenseClient, final = false) => {
      // pi delivers an extension's message after the running tool batch, never between a call and its
      // result: while the branch ends in a batch some of whose calls have no result yet (a recorded
      // request made mid-batch), the summaries wait for the next request. The oracle's final render
      // is made once, after the last request: a session that ends on an unanswered call (a SWE-agent
      // `submit`) gets its summaries in front of that batch, or no turn would ever look condensed.
      const open = openBatchAtEnd(branch);
      if (open && !final) return;
      let at = branch.length;
      if (open) while (at > 0 && !isAssistant(branch[at - 1])) at--;
      if (open) at--;
      const fresh: AgentMessage[] = [];
      // As the extension does: only the summaries that cover a result the agent's context holds (after
      // a host compaction, a summary of work the host dropped is not delivered).
      const undelivered = [...c.state.summaries, ...c.stagedSummaries].filter((s) => !delivered.has(s.id));
      for (const s of summariesOnBranch(undelivered, occurrenceKeysOf(branch))) {
        delivered.add(s.id);
        fresh.push(summaryMessage(s, clock));
      }
      branch.splice(at, 0, ...fresh);
    };

    const modelCall = (c: CondenseClient) => {
      deliver(c);
      c.applyPending(branch);
      const out = c.render(branch);
      if (out.failedOpen) renderFailures.push(`call ${calls.length + 1}: ${out.failedOpen}`);
      // In shadow mode the request sent is `out.messages` (the raw context) and the saving is measured
      // on what would have been sent.
      const rendered = out.shadow ?? out.messages;
      const base = baseline();
      if (out.shadow) {
        sentMeter.request(out.messages, arrayChars(out.messages, rawMemo), clock);
        if (JSON.stringify(out.messages) !== JSON.stringify(base)) {
          shadowMismatches.push(calls.length + 1);
        }
      }
      for (const v of pairingViolations(rendered, base))
        if (violations.length < 50) violations.push(`call ${calls.length + 1}: ${v}`);
      const rawChars = arrayChars(base, rawMemo);
      const renderedChars = arrayChars(rendered);
      rawMeter.request(base, rawChars, clock);
      const recorded = recordedContext(raw, session.compactions);
      recordedMeter.request(recorded, recorded === raw ? rawChars : arrayChars(recorded, recordedMemo), clock);
      lastCall = condensedMeter.request(rendered, renderedChars, clock);
      // What the provider reports is what was sent: in shadow mode, the raw request.
      if (out.shadow) lastCall = sentMeter.perCall[sentMeter.perCall.length - 1]!;
      const sample: CallSample = {
        call: calls.length + 1,
        messages: raw.length,
        rawTokens: tokensOfChars(rawChars),
        condensedTokens: tokensOfChars(renderedChars),
        rawCostUsd: 0,
        recordedCostUsd: 0,
        condensedCostUsd: 0,
        rawWriteTokens: 0,
        condensedWriteTokens: 0,
      };
      calls.push(sample);
      lastCondensedTokens = sample.condensedTokens;
      options.onProgress?.({
        call: sample.call,
        calls: totalCalls,
        flushes,
        rawTokens: sample.rawTokens,
        condensedTokens: sample.condensedTokens,
      });
    };

    // The agent's next request comes after the service finished the flush: its whole job, the chain
    // stage included, so what the next render sees never depends on timing. The in-process queue
    // says when it is idle; no status polling.
    const whenIdle = host.runtime.whenIdle;
    if (!whenIdle) throw new Error("replay needs the embedded service's in-process queue");
    const awaitFlush = async (c: CondenseClient, counted = true) => {
      if (counted) flushes++;
      const deadline = Date.now() + flushTimeoutMs;
      await c.drain(flushTimeoutMs);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), Math.max(0, deadline - Date.now()));
      });
      if ((await Promise.race([whenIdle(), late])) === "late") timedOut++;
      clearTimeout(timer);
      await c.sync();
    };

    const usage = () => (lastCondensedTokens === null ? null : { tokens: lastCondensedTokens, contextWindow });
    // What the agent's provider would have reported for the condensed request: the policy learns
    // from this, not from the usage recorded in the file (that was the uncondensed request's).
    const p = options.price;
    const simulatedUsage = (c: { read: number; write: number }, output: number) => {
      const writes = p.cacheWrite > 0;
      const input = writes ? 0 : c.write;
      const cacheWrite = writes ? c.write : 0;
      return {
        input,
        cacheRead: c.read,
        cacheWrite,
        output,
        timestamp: clock,
        model: p.model,
        cost: {
          input: (input * p.input) / 1e6,
          cacheRead: (c.read * p.cacheRead) / 1e6,
          cacheWrite: (cacheWrite * p.cacheWrite) / 1e6,
          output: (output * p.output) / 1e6,
        },
      };
    };

    for (let i = 0; i < messages.length; ) {
      const m = messages[i]!;
      clock = Math.max(clock, m.timestamp ?? clock);
      // Following the host: where it compacted, the agent's branch is what the host continued with.
      while (followHost && compactionsApplied < session.compactions.length) {
        const hc = session.compactions[compactionsApplied]!;
        if (hc.fullCount > raw.length) break;
        compactionsApplied++;
        if (landing) {
          landing = false;
          await awaitFlush(client);
        }
        branch.length = 0;
        branch.push(...hc.context);
        // The host's compaction runs between two requests: the next one is cold anyway.
        if (client.markCold("host-compaction", () => branch).flush) {
          flushAtCalls.push(calls.length);
          policyTurns.push(calls.length - 1);
          await awaitFlush(client);
        }
      }
      if (!isAssistant(m)) {
        branch.push(m);
        raw.push(m);
        i++;
        continue;
      }
      // The model is called with the branch so far, and answers with `m`.
      modelCall(client);
      // A flush asked for inside the agent's loop lands while this call runs: the model sees every raw
      // result at least once, and the flush's stubs reach the request after this one.
      if (landing) {
        landing = false;
        await awaitFlush(client);
      }
      branch.push(m);
      raw.push(m);
      rawMeter.output(m);
      recordedMeter.output(m);
      const outTokens = condensedMeter.output(m);
      outputs.push(outTokens);
      const atMessageEnd = client.messageEnd(m, () => branch, usage(), simulatedUsage(lastCall, outTokens));
      const results: AgentMessage[] = [];
      let j = i + 1;
      for (; j < messages.length && isToolResult(messages[j]); j++) {
        const r = messages[j]!;
        clock = Math.max(clock, r.timestamp ?? clock);
        results.push(r);
        branch.push(r);
        raw.push(r);
      }
      const captured = client.capture({ message: m, toolResults: results, turnIndex });
      turnIndex++;
      const atTurnEnd = client.turnEnd({
        toolResultCount: results.length,
        pushedThisTurn: captured.pushed,
        usage: usage(),
        branch: () => branch,
      });
      let replyFlush = atMessageEnd.flush;
      let loopFlush = atTurnEnd.flush;
      if (forced?.has(calls.length - 1) && client.flushNow(branch).flush) {
        if (toolCallsOf(m).length > 0) loopFlush = true;
        else replyFlush = true;
      }
      if (replyFlush || loopFlush) {
        flushAtCalls.push(calls.length);
        policyTurns.push(calls.length - 1);
      }
      // A reply's flush lands while the user reads it, before the next prompt.
      if (replyFlush) await awaitFlush(client);
      else if (loopFlush) landing = true;
      i = j;
    }
    // The last request billed is the last one the session made: a request is known to have been made
    // when its answer is recorded (pi records failed and aborted requests as assistant messages too; a
    // Claude Code response, a Codex response and a SWE-agent step are one assistant message each).
    // What follows the last answer went to no model: a pi display or custom message, a user's `!`
    // command, a prompt typed before the session ended, a SWE-agent `submit`'s observation. (Until
    // 2026-12-07 the replay billed "the next request" there, one the session never made.)
    if (landing) await awaitFlush(client);

    // The oracle's summaries: every turn flushed once more after the last request (not billed), and
    // the branch rendered with them.
    if (client.flushNow(branch).flush) await awaitFlush(client, false);
    deliver(client, true);
    client.applyPending(branch);
    const finalRendered = client.render(branch).messages;
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k]!;
      c.rawCostUsd = rawMeter.perCall[k]?.costUsd ?? 0;
      c.recordedCostUsd = recordedMeter.perCall[k]?.costUsd ?? 0;
      c.condensedCostUsd = condensedMeter.perCall[k]?.costUsd ?? 0;
      c.rawWriteTokens = rawMeter.perCall[k]?.write ?? 0;
      c.condensedWriteTokens = condensedMeter.perCall[k]?.write ?? 0;
    }
    const schedule = scheduleSessionOf(
      raw,
      finalRendered,
      calls.map((c, k) => ({
        rawTokens: c.rawTokens,
        messages: c.messages,
        cold: rawMeter.perCall[k]?.cold ?? false,
        outputTokens: outputs[k] ?? 0,
      })),
    );
    const none = scheduleCost(schedule, options.price, []);
    const byPolicy = scheduleCost(schedule, options.price, policyTurns);
    const best = optimalSchedule(schedule, options.price);
    const bestSaving = none.costUsd - best.costUsd;
    const modelShare =
      bestSaving > 1e-12
        ? (none.costUsd - byPolicy.costUsd) / bestSaving
        : byPolicy.costUsd <= none.costUsd + 1e-12
          ? 1
          : 0;
    const summarizerUsd = client.state.stats.totalCost;
    const policyUsd = condensedMeter.tally.costUsd + summarizerUsd;
    let replayed: OracleReport["replayed"] = null;
    if (options.replayOracle !== false && !forced) {
      // The same schedule the model found best, billed by the same replay as the policy's.
      const { onProgress: _quiet, ...same } = options;
      const o = await replayOn(host, session, { ...same, replayOracle: false, flushSchedule: best.flushes }, "-oracle");
      replayed = {
        costUsd: o.cost.condensed.costUsd + o.cost.summarizerUsd,
        savedUsd: o.cost.vsNoCompaction.savedUsd,
        savedPct: o.cost.vsNoCompaction.savedPct,
        flushes: o.flushes.requested,
      };
    }
    const oracle: OracleReport = {
      noneUsd: none.costUsd,
      policyUsd: byPolicy.costUsd,
      oracleUsd: best.costUsd,
      modelShare,
      replayed,
      share: replayed ? replayedShare(rawMeter.tally.costUsd - policyUsd, replayed.savedUsd) : modelShare,
      policyFlushes: byPolicy.flushes.map((t) => t + 1),
      oracleFlushes: best.flushes.map((t) => t + 1),
    };

    const status = await statusOf(client);
    const summarizerStats = client.state.stats;
    const rawTotal = calls.reduce((n, s) => n + s.rawTokens, 0);
    const condensedTotal = calls.reduce((n, s) => n + s.condensedTokens, 0);
    const last = calls[calls.length - 1];
    const captures = (status.captures ?? {}) as Record<string, number>;
    const condensedUsd = policyUsd;
    const savedUsd = rawMeter.tally.costUsd - condensedUsd;
    return {
      file: session.file,
      format: session.format,
      sessionId,
      messages: messages.length,
      skippedLines: session.skipped,
      warnings: session.warnings,
      calls,
      totals: {
        rawTokens: rawTotal,
        condensedTokens: condensedTotal,
        reclaimedTokens: rawTotal - condensedTotal,
        reclaimPct: pct(rawTotal - condensedTotal, rawTotal),
        finalRawTokens: last?.rawTokens ?? 0,
        finalCondensedTokens: last?.condensedTokens ?? 0,
        finalReclaimPct: last ? pct(last.rawTokens - last.condensedTokens, last.rawTokens) : 0,
      },
      flushes: { requested: flushes, timedOut },
      summarizer: {
        calls: summarizerStats.callCount,
        inputTokens: summarizerStats.totalInputTokens,
        outputTokens: summarizerStats.totalOutputTokens,
        costUsd: summarizerUsd,
      },
      captures,
      dedupHits: Number(captures.deduped ?? 0),
      summaries: client.state.summaries.length,
      chainsCompressed: summarizerStats.chainsCompressed,
      cost: {
        priceModel: options.price.model,
        cacheTtlMs: ttlMs,
        raw: { ...rawMeter.tally },
        recorded: { ...recordedMeter.tally },
        hostCompactions: session.compactions.length,
        condensed: { ...condensedMeter.tally },
        summarizerUsd,
        savedUsd,
        savedPct: pct(savedUsd, rawMeter.tally.costUsd),
        vsNoCompaction: saving(rawMeter.tally.costUsd, condensedUsd),
        // Replaced by the replay on the host's context where the host compacted (replaySession).
        condensedOnRecorded: { ...condensedMeter.tally },
        summarizerOnRecordedUsd: summarizerUsd,
        vsRecorded: saving(recordedMeter.tally.costUsd, condensedUsd),
      },
      flushAtCalls,
      oracle,
      shadow: { on: client.settings.shadowMode, sent: { ...sentMeter.tally }, mismatchedCalls: shadowMismatches },
      invariantViolations: violations,
      renderFailures,
      durationMs: Date.now() - started,
    };
  } finally {
    await client?.close().catch(() => {});
  }
}

/** Whether `branch` ends in an assistant's tool batch (its results only) with a call still unanswered. */
function openBatchAtEnd(branch: readonly AgentMessage[]): boolean {
  const answered = new Set<string>();
  for (let i = branch.length - 1; i >= 0; i--) {
    const m = branch[i];
    if (isToolResult(m)) answered.add(m.toolCallId);
    else return isAssistant(m) && toolCallsOf(m).some((c) => !answered.has(c.id));
  }
  return false;
}
