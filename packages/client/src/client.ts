/**
 * `createCondenseClient`: the agent-side SDK. It captures finished tool calls, decides when to ask for
 * a flush, mirrors the session state and renders the agent's messages against that mirror. The rule
 * that shapes it: nothing the agent waits on touches the network. `capture`, the trigger methods and
 * `render` are synchronous; sending, retrying and pulling happen in the background, and when the
 * service is unreachable rendering fails open (the last applied state, or the raw messages).
 *
 * It is a composition of four parts: the service connection (service-connection.ts), the capture
 * outbox (capture-outbox.ts), the flush scheduler (flush-scheduler.ts) and the render session
 * (render-session.ts); what is left here is the session's start and the calls that span them.
 */
import type { QueryAnswer, QueryRequest, SessionStatusAnswer } from "@condense/contract";
import {
  capturePendingBatches,
  normalizeSettings,
  runRearmProbe,
  type AgentMessage,
  type CallUsage,
  type CapturedBatch,
  type CondenseSettings,
  type CondenseState,
  type ContextMetrics,
  type ContextUsage,
  type DiagCounts,
  type SummaryEntry,
} from "@condense/core";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.ts";
import type { ScheduleBackground } from "./background-schedule.ts";
import { openCaptureOutbox } from "./capture-outbox.ts";
import { eventEmitter, type ClientEvent } from "./client-events.ts";
import { FlushScheduler } from "./flush-scheduler.ts";
import { messageSizes } from "./message-sizes.ts";
import { RenderSession } from "./render-session.ts";
import { attachStateCache, type StateCache } from "./state-cache.ts";
import { connectService, type CondenseHost } from "./service-connection.ts";
import type { HandOffResult, ResolveHandOff } from "./summarizer-handoff.ts";
import { CondenseHttpError, type FetchLike } from "./transport.ts";
import type { ColdReason, TriggerDecision, TriggerState } from "./trigger-state.ts";

export type { CondenseHost };

export interface CondenseClientOptions {
  /** Base URL of a Condense API (fleet mode). Without it, `host` must provide an in-process service. */
  url?: string;
  apiKey?: string;
  sessionId: string;
  settings?: unknown;
  /** Embedded mode: the in-process service (the caller's: `close()` leaves it running, other sessions may share it), or a factory started on first use (closed with the client). */
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
  /** A local service summarizes with the agent's own model: resolves what to hand it (summarizer-handoff.ts). */
  summarizerHandOff?: ResolveHandOff;
  /** The last applied state on disk (state-cache.ts): a resumed session renders with it before its first sync. */
  stateCache?: StateCache;
  /**
   * When captures are sent, automatic flush requests built and render diagnostics posted
   * (background-schedule.ts): by default on
   * the next event-loop turn; a host that knows when its agent waits on the model passes that moment.
   */
  schedule?: ScheduleBackground;
}

export interface TurnInput {
  message: AgentMessage;
  toolResults: readonly AgentMessage[];
  /** Position of the assistant among all assistant messages of the branch. */
  turnIndex: number;
}

export interface CaptureResult {
  pushed: boolean;
  captureId: string | null;
  batch: CapturedBatch | null;
}

export interface RenderOutput {
  messages: readonly AgentMessage[];
  pruned: boolean;
  /**
   * Shadow mode (`shadowMode`): `messages` is the input, unchanged, and this is what Condense would
   * have sent, so a fleet can measure the saving before it lets Condense change a request.
   */
  shadow?: readonly AgentMessage[];
  /** Set when rendering failed and the input was returned untouched. */
  failedOpen?: string;
}

export interface QueryResult {
  text: string;
  details: { hits: unknown[]; notFound: string[] };
}

export interface StartResult {
  resent: number;
  rearmed: boolean;
  synced: boolean;
  error?: string;
}

export interface CondenseClient {
  readonly sessionId: string;
  readonly settings: CondenseSettings;
  updateSettings(next: unknown): CondenseSettings;
  /** Connect, pull the state, resend what the branch holds that the service never acknowledged, rearm. */
  start(branch: readonly AgentMessage[], options?: { syncTimeoutMs?: number }): Promise<StartResult>;
  capture(turn: TurnInput): CaptureResult;
  turnEnd(input: {
    toolResultCount: number;
    pushedThisTurn: boolean;
    usage: ContextUsage | null | undefined;
    branch: () => readonly AgentMessage[];
  }): TriggerDecision;
  /**
   * An assistant message ended. `callUsage` is the request's cache usage when the caller measured it
   * itself (a replay); by default the message's own `usage` (pi-ai) calibrates the `roi` policy.
   * `usage` (the context's size) is only needed when a flush is asked for: a function is called then only.
   */
  messageEnd(
    message: AgentMessage,
    branch: () => readonly AgentMessage[],
    usage?: ContextUsage | null | (() => ContextUsage | null | undefined),
    callUsage?: CallUsage | null,
  ): TriggerDecision;
  /** The host knows the next request starts cold (model switch, its own compaction): under `roi`, a moment to flush. */
  markCold(reason: ColdReason, branch: () => readonly AgentMessage[]): TriggerDecision;
  flushNow(branch: readonly AgentMessage[], usage?: ContextUsage | null): TriggerDecision & { captured: number };
  /** Apply a staged delta. With `context`, waits (a few calls at most) until its summaries are in it. */
  applyPending(context?: readonly AgentMessage[]): boolean;
  render(messages: readonly AgentMessage[]): RenderOutput;
  /** Recover originals; `page.offset` pages through long bodies (each cut names the next offset). */
  query(refs: readonly string[], page?: { offset?: number; limit?: number }): Promise<QueryResult>;
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
  /**
   * Seed an empty session with state another condenser left (POST .../imports), before `start`, so
   * the start's rescan already sees it. Skipped (false) when the service holds state for the session.
   */
  importState(body: unknown): Promise<boolean>;
  /** Resolve and send the summarizer hand-off now (start, model change); no-op without `summarizerHandOff`. */
  handOffSummarizer(): Promise<HandOffResult>;
  /**
   * Wait until everything queued has been acknowledged, at most `timeoutMs`. `whileReachable`: give up
   * as soon as no service has answered this process yet (a first start, which can take seconds);
   * `idleMs`: give up once that long passes with no item acknowledged (a restarted service working
   * off a backlog is waited for, a service that does not answer is not). What is left stays queued,
   * and captures stay in the spool for the next process on the session.
   */
  drain(timeoutMs?: number, options?: { whileReachable?: boolean; idleMs?: number }): Promise<boolean>;
  close(): Promise<void>;
}

export function createCondenseClient(options: CondenseClientOptions): CondenseClient {
  if (!options.url && !options.host) {
    throw new Error(
      "createCondenseClient: give `url` (a Condense API) or `host` (an in-process or local service, see @condense/service)",
    );
  }
  const emit = eventEmitter(options.onEvent);
  const sessionPath = `/v1/sessions/${encodeURIComponent(options.sessionId)}`;
  let settings = normalizeSettings(options.settings);
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const now = options.now ?? Date.now;

  // One size per message object for the whole session, shared by renders' metrics and flush requests.
  const sizeOf = messageSizes();
  const connection = connectService(options, sessionPath, () => session.mirror, backoff, emit);
  const { transport, handOff } = connection;
  const session: RenderSession = new RenderSession({
    transport,
    sessionPath,
    backoff,
    settings: () => settings,
    ...(options.maxApplyDeferrals !== undefined ? { maxApplyDeferrals: options.maxApplyDeferrals } : {}),
    onLanded: (tokens) => scheduler.trigger.landed(tokens),
    sizeOf,
    ...(options.schedule ? { schedule: options.schedule } : {}),
    emit,
  });
  // Read now; seeds the mirror if it loads before a sync or render (and is saved at each apply).
  if (options.stateCache)
    void attachStateCache(session.mirror, options.stateCache, (r) =>
      emit({ type: "error", where: "state cache", error: new Error(`ignored (${r.reason}): ${r.detail}`) }),
    );
  const outbox = openCaptureOutbox({
    transport,
    sessionId: options.sessionId,
    ...(options.spoolPath ? { spoolPath: options.spoolPath } : {}),
    backoff,
    handOff,
    ...(options.schedule ? { schedule: options.schedule } : {}),
    emit,
  });
  const scheduler: FlushScheduler = new FlushScheduler({
    outbox,
    handOff,
    knownState: () => session.knownState(),
    settings: () => settings,
    now,
    onMetrics: (m) => session.noteMetrics(m),
    sizeOf,
    ...(options.schedule ? { schedule: options.schedule } : {}),
    emit,
  });
  const { trigger } = scheduler;

  return {
    sessionId: options.sessionId,
    get settings() {
      return settings;
    },
    updateSettings(next) {
      settings = normalizeSettings(next);
      return settings;
    },

    async start(branch, startOptions = {}) {
      trigger.reset();
      session.reset();
      let synced = false;
      let error: string | undefined;
      try {
        await session.initialSync(startOptions.syncTimeoutMs ?? 5_000);
        synced = true;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        emit({ type: "error", where: "initial sync", error: err, willRetry: true });
      }
      let resent = 0;
      const probe = runRearmProbe(() => {
        const found = capturePendingBatches(branch, session.knownState(), settings, { now: now() });
        resent = found.length;
        return found;
      });
      if (probe.ok && probe.batches.length > 0) outbox.enqueueBatches(probe.batches);
      const rearmError = trigger.rearm(settings.enabled, probe);
      if (rearmError) emit({ type: "error", where: "rearm probe", error: new Error(rearmError) });
      session.resetMetrics(branch);
      session.refreshCounts();
      connection.watchVersions();
      return { resent, rearmed: trigger.rearmed, synced, ...(error ? { error } : {}) };
    },

    capture(turn) {
      if (!settings.enabled) return { pushed: false, captureId: null, batch: null };
      const captured = outbox.capture(
        { message: turn.message, toolResults: turn.toolResults, turnIndex: turn.turnIndex, now: now() },
        session.knownState(),
        settings,
      );
      if (!captured) return { pushed: false, captureId: null, batch: null };
      trigger.pushed(captured.batch);
      return { pushed: true, ...captured };
    },

    turnEnd({ toolResultCount, pushedThisTurn, usage, branch }) {
      return scheduler.turnEnd(toolResultCount, pushedThisTurn, usage, branch);
    },
    messageEnd(message, branch, usage, callUsage) {
      return scheduler.messageEnd(message, branch, usage, callUsage);
    },
    markCold(reason, branch) {
      return scheduler.markCold(reason, branch);
    },
    flushNow(branch, usage) {
      return scheduler.flushNow(branch, usage);
    },

    applyPending(context) {
      return session.applyPending(context);
    },
    render(messages) {
      return session.render(messages);
    },

    async query(refs, page = {}) {
      const r = await transport.request<QueryAnswer>("POST", `${sessionPath}/query`, {
        toolCallIds: [...refs],
        ...page,
      } satisfies QueryRequest);
      return { text: r.text, details: { hits: r.hits, notFound: r.notFound } };
    },

    status() {
      return transport.request<SessionStatusAnswer>("GET", `${sessionPath}/status`);
    },

    sync() {
      return session.mirror.pull();
    },

    refreshMetrics(branch) {
      return session.refreshMetrics(branch);
    },

    get state() {
      return session.mirror.applied;
    },
    get stagedSummaries() {
      return session.stagedSummaries;
    },
    get metrics() {
      return session.metrics;
    },
    get reclaim() {
      return session.reclaim;
    },
    get diag() {
      return session.diag;
    },
    get trigger() {
      return trigger;
    },
    get outboxSize() {
      return outbox.size;
    },
    get degraded() {
      return outbox.degraded || session.mirror.lastPullError !== null;
    },

    footerText() {
      return session.footerText();
    },

    async importState(body) {
      try {
        const status = await transport.request<SessionStatusAnswer>("GET", `${sessionPath}/status?flushes=1`);
        if (status.version > 0) return false;
      } catch (err) {
        if (!(err instanceof CondenseHttpError && err.status === 404)) throw err;
      }
      await transport.request("POST", `${sessionPath}/imports`, body);
      return true;
    },

    handOffSummarizer() {
      return handOff ? handOff.send() : Promise.resolve({ sent: false, notices: [] });
    },

    async drain(timeoutMs = 10_000, drainOptions = {}) {
      scheduler.runPendingBuild();
      return outbox.drain(timeoutMs, {
        ...(drainOptions.whileReachable ? { stalled: () => !connection.reachable() } : {}),
        ...(drainOptions.idleMs !== undefined ? { idleMs: drainOptions.idleMs } : {}),
      });
    },

    async close() {
      scheduler.runPendingBuild();
      outbox.close();
      session.close();
      await connection.close();
    },
  };
}
