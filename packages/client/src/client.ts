/**
 * `createCondenseClient`: the agent-side SDK. It captures finished tool calls, decides when to ask for
 * a flush, mirrors the session state and renders the agent's messages against that mirror. The rule
 * that shapes it: nothing the agent waits on touches the network. `capture`, the trigger methods and
 * `render` are synchronous; sending, retrying and pulling happen in the background, and when the
 * service is unreachable rendering fails open (the last applied state, or the raw messages).
 */
import {
  capturePendingBatches,
  captureTurn,
  computeContextMetrics,
  diagCounts,
  emptyLedger,
  isSummaryMessage,
  normalizeSettings,
  pruneMessages,
  recordDiagnostics,
  runRearmProbe,
  statusLineText,
  type AgentMessage,
  type CapturedBatch,
  type CondenseSettings,
  type CondenseState,
  type ContextMetrics,
  type ContextUsage,
  type DiagCounts,
  type Diagnostic,
  type DiagnosticsLedger,
  type FlushTrigger,
  type SummaryEntry,
} from "@condense/core";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.ts";
import { CaptureSpool } from "./capture-spool.ts";
import { buildFlushRequest } from "./flush-request.ts";
import { Outbox, type CaptureAck, type FlushAck, type OutboxItem } from "./outbox.ts";
import { StateMirror, type StagedChange } from "./state-mirror.ts";
import { createTransport, type FetchLike, type Transport } from "./transport.ts";
import { TriggerState, type TriggerDecision } from "./trigger-state.ts";
import { VersionWatch } from "./version-watch.ts";

/** An in-process service (embedded mode): the API app's fetch plus a key it accepts. */
export interface CondenseHost {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  close(): Promise<void>;
}

export type ClientEvent =
  | { type: "staged"; version: number; newSummaries: SummaryEntry[] }
  | { type: "applied"; version: number; summaries: SummaryEntry[] }
  | { type: "capture-acked"; captureId: string; accepted: number; duplicates: number }
  | { type: "flush-accepted"; flushId: string; trigger: string; cursor: number }
  /** A trigger's flush request was built (off the agent's turn for automatic triggers) and queued. */
  | { type: "flush-queued"; trigger: string; buildMs: number }
  | { type: "diagnostics"; diagnostics: Diagnostic[] }
  | { type: "error"; where: string; error: unknown; willRetry?: boolean };

export interface CondenseClientOptions {
  /** Base URL of a Condense API (fleet mode). Without it, `host` must provide an in-process service. */
  url?: string;
  apiKey?: string;
  sessionId: string;
  settings?: unknown;
  /** Embedded mode: the in-process service, or a factory started on first use. */
  host?: CondenseHost | (() => Promise<CondenseHost>);
  /** Append-only spool of unacknowledged captures; survives a crash. */
  spoolPath?: string;
  fetch?: FetchLike;
  backoff?: BackoffPolicy;
  /** Poll interval when SSE is unavailable (default 1000 ms). */
  pollMs?: number;
  /** Use the SSE version stream (default true). */
  sse?: boolean;
  requestTimeoutMs?: number;
  /** Render calls a staged delta may wait for its summaries to reach the context before it is applied anyway. */
  maxApplyDeferrals?: number;
  now?: () => number;
  onEvent?: (event: ClientEvent) => void;
}

export interface TurnInput {
  message: AgentMessage;
  toolResults: readonly AgentMessage[];
  /** Position of the assistant among all assistant messages of the branch. */
  turnIndex: number;
}

export interface CaptureResult { pushed: boolean; captureId: string | null; batch: CapturedBatch | null }

export interface RenderOutput {
  messages: readonly AgentMessage[];
  pruned: boolean;
  /** Set when rendering failed and the input was returned untouched. */
  failedOpen?: string;
}

export interface QueryResult {
  text: string;
  details: { hits: unknown[]; notFound: string[] };
}

export interface StartResult { resent: number; rearmed: boolean; synced: boolean; error?: string }

export interface CondenseClient {
  readonly sessionId: string;
  readonly settings: CondenseSettings;
  updateSettings(next: unknown): CondenseSettings;
  /** Connect, pull the state, resend what the branch holds that the service never acknowledged, rearm. */
  start(branch: readonly AgentMessage[], options?: { syncTimeoutMs?: number }): Promise<StartResult>;
  capture(turn: TurnInput): CaptureResult;
  turnEnd(input: { toolResultCount: number; pushedThisTurn: boolean; usage: ContextUsage | null | undefined; branch: () => readonly AgentMessage[] }): TriggerDecision;
  messageEnd(message: AgentMessage, branch: () => readonly AgentMessage[], usage?: ContextUsage | null): TriggerDecision;
  flushNow(branch: readonly AgentMessage[], usage?: ContextUsage | null): TriggerDecision & { captured: number };
  /** Apply a staged delta. With `context`, waits (a few calls at most) until its summaries are in it. */
  applyPending(context?: readonly AgentMessage[]): boolean;
  render(messages: readonly AgentMessage[]): RenderOutput;
  query(refs: readonly string[]): Promise<QueryResult>;
  status(): Promise<Record<string, unknown>>;
  /** Pull the state now (also done in the background). */
  sync(): Promise<boolean>;
  refreshMetrics(branch: readonly AgentMessage[]): ContextMetrics | null;
  readonly state: CondenseState;
  readonly stagedSummaries: SummaryEntry[];
  readonly metrics: ContextMetrics | null;
  readonly reclaim: { beforeChars: number; afterChars: number } | null;
  readonly diag: DiagCounts;
  readonly trigger: Readonly<TriggerState>;
  readonly outboxSize: number;
  readonly degraded: boolean;
  footerText(): string;
  /** Wait until everything queued has been acknowledged (bounded). */
  drain(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createCondenseClient(options: CondenseClientOptions): CondenseClient {
  if (!options.url && !options.host) {
    throw new Error("createCondenseClient: give `url` (a Condense API) or `host` (an in-process service, see @condense/embedded)");
  }
  const emit = (e: ClientEvent) => { try { options.onEvent?.(e); } catch { /* a listener must not break the client */ } };
  const sessionPath = `/v1/sessions/${encodeURIComponent(options.sessionId)}`;
  let settings = normalizeSettings(options.settings);
  const backoff = options.backoff ?? DEFAULT_BACKOFF;

  // The transport resolves the host lazily, so creating a client never blocks and an embedded service
  // starts on first use.
  let hostPromise: Promise<CondenseHost> | null = null;
  const resolveHost = (): Promise<CondenseHost> => {
    if (!options.host) throw new Error("no host");
    if (!hostPromise) hostPromise = typeof options.host === "function" ? options.host() : Promise.resolve(options.host);
    return hostPromise;
  };
  let transport: Transport;
  if (options.url) {
    transport = createTransport({
      baseUrl: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      timeoutMs: options.requestTimeoutMs ?? 10_000,
    });
  } else {
    let inner: Promise<Transport> | null = null;
    const get = () => (inner ??= resolveHost().then((h) => createTransport({ baseUrl: h.baseUrl, apiKey: h.apiKey, fetch: h.fetch, timeoutMs: options.requestTimeoutMs ?? 30_000 })));
    transport = {
      request: async (m, p, b, s) => (await get()).request(m, p, b, s),
      stream: async (p, s) => (await get()).stream(p, s),
    };
  }

  const trigger = new TriggerState();
  const mirror = new StateMirror(transport, sessionPath, (c: StagedChange) => emit({ type: "staged", version: c.version, newSummaries: c.newSummaries }));
  const outbox = new Outbox({
    transport,
    sessionId: options.sessionId,
    ...(options.spoolPath ? { spool: new CaptureSpool(options.spoolPath) } : {}),
    backoff,
    onCaptureAcked: (captureId: string, ack: CaptureAck) => emit({ type: "capture-acked", captureId, accepted: ack.accepted, duplicates: ack.duplicates }),
    onFlushAccepted: (ack: FlushAck) => emit({ type: "flush-accepted", flushId: ack.flushId, trigger: ack.trigger, cursor: ack.cursor }),
    onSendError: (error: unknown, item: OutboxItem, willRetry: boolean) => emit({ type: "error", where: `send ${item.kind}`, error, willRetry }),
  });
  const watch = new VersionWatch({
    transport,
    sessionPath,
    mirror,
    pollMs: options.pollMs ?? 1000,
    backoff: { ...backoff, maxMs: Math.max(backoff.maxMs, 30_000) },
    sse: options.sse ?? true,
    onError: (error) => emit({ type: "error", where: "state pull", error, willRetry: true }),
  });

  let metricsCache: ContextMetrics | null = null;
  let reclaim: { beforeChars: number; afterChars: number } | null = null;
  let ledger: DiagnosticsLedger = emptyLedger();
  /**
   * Frozen diagnostic objects already recorded in `ledger`: the render hands back the same frozen
   * object for a condition that persists (an unresolved chain range reported on every call), and the
   * ledger only grows, so a render whose diagnostics are all in here has nothing fresh and skips the
   * ledger lookup (it builds a key string per diagnostic). Frozen only: they cannot change their key.
   */
  let recordedFrozen = new WeakSet<Diagnostic>();
  const allRecorded = (ds: readonly Diagnostic[]) => {
    for (let i = 0; i < ds.length; i++) if (!recordedFrozen.has(ds[i]!)) return false;
    return true;
  };
  let deferrals = 0;
  let measuredVersion = -1;
  const now = options.now ?? Date.now;
  /** The newest state known: trimming against it avoids resending what is already summarized. */
  const knownState = () => mirror.staged ?? mirror.applied;

  /** An automatic trigger's request, built on the next event-loop turn (see postFlush). */
  let pendingBuild: { run: () => void; handle: NodeJS.Immediate } | null = null;
  const runPendingBuild = () => {
    const p = pendingBuild;
    if (!p) return;
    pendingBuild = null;
    clearImmediate(p.handle);
    p.run();
  };

  /**
   * Hand a flush request to the outbox. Building it (metrics snapshot, chain detection, grace keys) reads
   * the whole branch and costs milliseconds on a long session, so an automatic trigger (`defer`) builds
   * it on the next event-loop turn, while the agent waits on its model, from the branch, state and
   * settings as they are now; `flushing` stays set until then (CAP-TRIGGER-12). The manual command
   * builds it at once.
   */
  function postFlush(trig: FlushTrigger, branch: readonly AgentMessage[], closingMessage?: AgentMessage, usage?: ContextUsage | null, defer = false): void {
    runPendingBuild();
    trigger.flushing = true;
    trigger.flushStarted();
    const state = knownState();
    const current = settings;
    const build = () => {
      const t0 = performance.now();
      try {
        const body = buildFlushRequest({ trigger: trig, branch, ...(closingMessage ? { closingMessage } : {}), ...(usage ? { usage } : {}) }, state, current);
        metricsCache = body.metrics;
        outbox.enqueueFlush(body);
        emit({ type: "flush-queued", trigger: trig, buildMs: performance.now() - t0 });
      } catch (error) {
        emit({ type: "error", where: "flush request", error });
      } finally {
        trigger.flushing = false;
      }
    };
    if (!defer) return build();
    pendingBuild = { run: build, handle: setImmediate(runPendingBuild) };
  }

  function resendFromBranch(branch: readonly AgentMessage[]): number {
    const batches = capturePendingBatches(branch, knownState(), settings, { now: now() });
    // Chunked so one POST stays well under the API's body limit; ids stay deterministic per chunk.
    for (let i = 0; i < batches.length; i += 50) outbox.enqueueCapture(batches.slice(i, i + 50));
    return batches.length;
  }

  const client: CondenseClient = {
    sessionId: options.sessionId,
    get settings() { return settings; },
    updateSettings(next) {
      settings = normalizeSettings(next);
      return settings;
    },

    async start(branch, startOptions = {}) {
      trigger.reset();
      ledger = emptyLedger();
      recordedFrozen = new WeakSet();
      let synced = false;
      let error: string | undefined;
      const timeoutMs = startOptions.syncTimeoutMs ?? 5_000;
      try {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`initial sync exceeded ${timeoutMs} ms`)), timeoutMs); });
        try {
          await Promise.race([mirror.pull(), timeout]);
        } finally {
          clearTimeout(timer);
        }
        // Startup is a safe boundary: nothing has been rendered in this process yet.
        mirror.apply();
        synced = true;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        emit({ type: "error", where: "initial sync", error: err, willRetry: true });
      }
      let resent = 0;
      const probe = runRearmProbe(() => {
        const found = capturePendingBatches(branch, knownState(), settings, { now: now() });
        resent = found.length;
        return found;
      });
      if (probe.ok && probe.batches.length > 0) {
        for (let i = 0; i < probe.batches.length; i += 50) outbox.enqueueCapture(probe.batches.slice(i, i + 50));
      }
      const rearmError = trigger.rearm(settings.enabled, probe);
      if (rearmError) emit({ type: "error", where: "rearm probe", error: new Error(rearmError) });
      metricsCache = safeMetrics(branch);
      watch.start();
      return { resent, rearmed: trigger.rearmed, synced, ...(error ? { error } : {}) };
    },

    capture(turn) {
      if (!settings.enabled) return { pushed: false, captureId: null, batch: null };
      const batch = captureTurn({ message: turn.message, toolResults: turn.toolResults, turnIndex: turn.turnIndex, now: now() }, knownState(), settings);
      if (!batch) return { pushed: false, captureId: null, batch: null };
      const captureId = outbox.enqueueCapture([batch]);
      trigger.pushed();
      return { pushed: true, captureId, batch };
    },

    turnEnd({ toolResultCount, pushedThisTurn, usage, branch }) {
      const d = trigger.turnEnd(settings, toolResultCount, pushedThisTurn, usage);
      if (d.flush && d.trigger) postFlush(d.trigger, branch(), undefined, usage, true);
      return d;
    },

    messageEnd(message, branch, usage) {
      const d = trigger.messageEnd(settings, message);
      if (d.flush && d.trigger) postFlush(d.trigger, branch(), d.closingMessage, usage, true);
      return d;
    },

    flushNow(branch, usage) {
      const captured = settings.enabled ? capturePendingBatches(branch, knownState(), settings, { now: now() }) : [];
      const d = trigger.manual(settings.enabled, captured.length);
      if (d.flush) {
        // The manual command also resends what the branch holds, in case a capture was lost.
        if (captured.length > 0) resendFromBranch(branch);
        postFlush("manual", branch, undefined, usage);
      }
      return { ...d, captured: captured.length };
    },

    applyPending(context) {
      if (!mirror.staged) return false;
      const waiting = mirror.pendingSummaries();
      if (context && waiting.length > 0 && deferrals < (options.maxApplyDeferrals ?? 3)) {
        const present = new Set<string>();
        for (const m of context) {
          if (!isSummaryMessage(m)) continue;
          const d = m.details as { summaryId?: unknown; summaryIds?: unknown } | undefined;
          if (typeof d?.summaryId === "string") present.add(d.summaryId);
          if (Array.isArray(d?.summaryIds)) for (const id of d.summaryIds) if (typeof id === "string") present.add(id);
        }
        if (!waiting.every((s) => present.has(s.id))) {
          deferrals++;
          return false;
        }
      }
      deferrals = 0;
      const changed = mirror.apply();
      if (changed) emit({ type: "applied", version: mirror.applied.version, summaries: waiting });
      return changed;
    },

    render(messages) {
      if (!settings.enabled) return { messages, pruned: false };
      try {
        // The reclaim figure costs a full serialization of fresh clones; it is measured once per
        // applied state (it moves with flushes), not on every call.
        const measure = measuredVersion !== mirror.applied.version;
        const r = pruneMessages(messages, mirror.applied, { settings, measure });
        if (r.pruned && measure) {
          reclaim = { beforeChars: r.beforeChars, afterChars: r.afterChars };
          measuredVersion = mirror.applied.version;
        }
        if (r.diagnostics.length > 0 && !allRecorded(r.diagnostics)) {
          const rec = recordDiagnostics(ledger, r.diagnostics);
          ledger = rec.ledger;
          for (const d of r.diagnostics) if (Object.isFrozen(d)) recordedFrozen.add(d);
          if (rec.fresh.length > 0) emit({ type: "diagnostics", diagnostics: rec.fresh });
        }
        return { messages: r.messages, pruned: r.pruned };
      } catch (err) {
        // Fail open: the raw messages are always a valid request (their tool pairing is the host's own).
        emit({ type: "error", where: "render", error: err });
        return { messages, pruned: false, failedOpen: err instanceof Error ? err.message : String(err) };
      }
    },

    async query(refs) {
      const r = await transport.request<{ text: string; hits: unknown[]; notFound: string[] }>("POST", `${sessionPath}/query`, { toolCallIds: refs });
      return { text: r.text, details: { hits: r.hits, notFound: r.notFound } };
    },

    status() {
      return transport.request<Record<string, unknown>>("GET", `${sessionPath}/status`);
    },

    sync() {
      return mirror.pull();
    },

    refreshMetrics(branch) {
      const m = safeMetrics(branch);
      if (m) metricsCache = m;
      return metricsCache;
    },

    get state() { return mirror.applied; },
    get stagedSummaries() { return mirror.pendingSummaries(); },
    get metrics() { return metricsCache; },
    get reclaim() { return reclaim; },
    get diag() { return diagCounts(ledger); },
    get trigger() { return trigger; },
    get outboxSize() { return outbox.size; },
    get degraded() { return outbox.degraded || mirror.lastPullError !== null; },

    footerText() {
      return statusLineText({ enabled: settings.enabled, reclaim, diag: diagCounts(ledger), metrics: metricsCache });
    },

    async drain(timeoutMs = 10_000) {
      runPendingBuild();
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        outbox.drain().then(() => true),
        new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); timer.unref?.(); }),
      ]);
      clearTimeout(timer);
      return done;
    },

    async close() {
      runPendingBuild();
      outbox.close();
      await watch.close();
      if (hostPromise) {
        const h = await hostPromise.catch(() => null);
        await h?.close();
      }
    },
  };

  function safeMetrics(branch: readonly AgentMessage[]): ContextMetrics | null {
    try {
      return computeContextMetrics(branch, mirror.applied, settings);
    } catch (error) {
      emit({ type: "error", where: "metrics", error });
      return null;
    }
  }

  return client;
}
