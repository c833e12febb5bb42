/**
 * `replaySession`: plays a recorded session through the real pipeline as the pi extension would
 * drive it, turn by turn. Before every model call the branch is rendered by the client (against the
 * state it mirrors from the API); after every turn the finished tool calls are captured and the
 * trigger policy decides whether to ask for a flush. A flush goes client -> API -> queue -> worker ->
 * summarizer -> Postgres/PGlite, and the replay waits for it before the next call (as if the
 * summarizer kept pace with the agent), then delivers the new summaries into the branch.
 *
 * Measured per model call: the raw context (what the agent sent without Condense) and the rendered
 * one, both as chars/4 tokens of the JSON message array, plus their cache-aware input cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { CondenseHttpError, createCondenseClient, type CondenseClient } from "@condense/client";
import { arrayChars, createSizeMemo, isAssistant, isToolResult, tokensOfChars, type AgentMessage } from "@condense/core";
import { startEmbeddedHost } from "@condense/embedded";
import { CacheCostMeter, type CacheTally } from "./cache-cost.ts";
import type { LoadedSession } from "./load-session.ts";
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
}

export interface ReplayProgress { call: number; calls: number; flushes: number; rawTokens: number; condensedTokens: number }

export interface CallSample {
  /** 1-based model call number. */
  call: number;
  messages: number;
  rawTokens: number;
  condensedTokens: number;
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
  cost: { priceModel: string; raw: CacheTally; condensed: CacheTally; summarizerUsd: number; savedUsd: number; savedPct: number };
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

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0);

export async function replaySession(session: LoadedSession, options: ReplayOptions): Promise<ReplayResult> {
  const started = Date.now();
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "condense-replay-"));
  const sessionId = `replay-${basename(session.file).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}-${started.toString(36)}`;
  const contextWindow = options.contextWindow ?? options.price.contextWindow;
  const flushTimeoutMs = options.flushTimeoutMs ?? 120_000;
  const messages = session.messages;
  const totalCalls = messages.filter(isAssistant).length;

  let clock = messages[0]?.timestamp ?? Date.now();
  const host = await startEmbeddedHost({ dataDir, env: { ...(options.summarizerEnv ?? {}), WORKER_CONCURRENCY: "2" } });
  let client: CondenseClient | undefined;
  try {
    client = createCondenseClient({
      sessionId,
      host,
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
      // The replay pulls state itself after each flush; no background stream or polling.
      sse: false,
      pollMs: 3_600_000,
      now: () => clock,
    });
    await client.start([], { syncTimeoutMs: 30_000 });

    const branch: AgentMessage[] = [];
    const raw: AgentMessage[] = [];
    const delivered = new Set<string>();
    const rawMeter = new CacheCostMeter(options.price);
    const condensedMeter = new CacheCostMeter(options.price);
    const rawMemo = createSizeMemo();
    const calls: CallSample[] = [];
    const violations: string[] = [];
    const renderFailures: string[] = [];
    let flushes = 0;
    let timedOut = 0;
    let turnIndex = 0;
    let lastCondensedTokens: number | null = null;

    const deliver = (c: CondenseClient) => {
      for (const s of [...c.state.summaries, ...c.stagedSummaries]) {
        if (delivered.has(s.id)) continue;
        delivered.add(s.id);
        branch.push(summaryMessage(s, clock));
      }
    };

    const modelCall = (c: CondenseClient) => {
      deliver(c);
      c.applyPending(branch);
      const out = c.render(branch);
      if (out.failedOpen) renderFailures.push(`call ${calls.length + 1}: ${out.failedOpen}`);
      const rendered = out.messages;
      for (const v of pairingViolations(rendered, raw)) if (violations.length < 50) violations.push(`call ${calls.length + 1}: ${v}`);
      const rawChars = arrayChars(raw, rawMemo);
      const renderedChars = arrayChars(rendered);
      rawMeter.request(raw, rawChars);
      condensedMeter.request(rendered, renderedChars);
      const sample = { call: calls.length + 1, messages: raw.length, rawTokens: tokensOfChars(rawChars), condensedTokens: tokensOfChars(renderedChars) };
      calls.push(sample);
      lastCondensedTokens = sample.condensedTokens;
      options.onProgress?.({ call: sample.call, calls: totalCalls, flushes, rawTokens: sample.rawTokens, condensedTokens: sample.condensedTokens });
    };

    const awaitFlush = async (c: CondenseClient) => {
      flushes++;
      const deadline = Date.now() + flushTimeoutMs;
      await c.drain(flushTimeoutMs);
      for (;;) {
        const st = await statusOf(c);
        if (Number(st.queuedFlushRequests ?? 0) === 0) break;
        if (Date.now() > deadline) { timedOut++; break; }
        await new Promise((r) => setTimeout(r, 25));
      }
      await c.sync();
    };

    const usage = () => (lastCondensedTokens === null ? null : { tokens: lastCondensedTokens, contextWindow });

    for (let i = 0; i < messages.length; ) {
      const m = messages[i]!;
      clock = Math.max(clock, m.timestamp ?? clock);
      if (!isAssistant(m)) {
        branch.push(m);
        raw.push(m);
        i++;
        continue;
      }
      // The model is called with the branch so far, and answers with `m`.
      modelCall(client);
      branch.push(m);
      raw.push(m);
      rawMeter.output(m);
      condensedMeter.output(m);
      const atMessageEnd = client.messageEnd(m, () => branch, usage());
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
      const atTurnEnd = client.turnEnd({ toolResultCount: results.length, pushedThisTurn: captured.pushed, usage: usage(), branch: () => branch });
      if (atMessageEnd.flush || atTurnEnd.flush) await awaitFlush(client);
      i = j;
    }
    // The request the agent would make next carries the last turn's results too.
    if (raw.length > 0 && !isAssistant(raw[raw.length - 1])) modelCall(client);

    const status = await statusOf(client);
    const summarizerStats = client.state.stats;
    const rawTotal = calls.reduce((n, s) => n + s.rawTokens, 0);
    const condensedTotal = calls.reduce((n, s) => n + s.condensedTokens, 0);
    const last = calls[calls.length - 1];
    const captures = (status.captures ?? {}) as Record<string, number>;
    const summarizerUsd = summarizerStats.totalCost;
    const savedUsd = rawMeter.tally.costUsd - condensedMeter.tally.costUsd - summarizerUsd;
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
      summarizer: { calls: summarizerStats.callCount, inputTokens: summarizerStats.totalInputTokens, outputTokens: summarizerStats.totalOutputTokens, costUsd: summarizerUsd },
      captures,
      dedupHits: Number(captures.deduped ?? 0),
      summaries: client.state.summaries.length,
      chainsCompressed: summarizerStats.chainsCompressed,
      cost: {
        priceModel: options.price.model,
        raw: { ...rawMeter.tally },
        condensed: { ...condensedMeter.tally },
        summarizerUsd,
        savedUsd,
        savedPct: pct(savedUsd, rawMeter.tally.costUsd),
      },
      invariantViolations: violations,
      renderFailures,
      durationMs: Date.now() - started,
    };
  } finally {
    await client?.close().catch(() => {});
    await host.close().catch(() => {});
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
