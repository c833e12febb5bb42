/**
 * The render session: the state mirror (staged deltas, applied at safe boundaries), rendering the
 * agent's messages against the applied state through core's `pruneMessages` (failing open), the
 * diagnostics those renders report, and the figures the footer shows (context metrics, reclaim).
 */
import {
  computeContextMetrics,
  isSummaryMessage,
  occurrenceKeysOf,
  pruneMessages,
  statusLineText,
  summariesOnBranch,
  tokensOfChars,
  type AgentMessage,
  type CondenseSettings,
  type CondenseState,
  type ContextMetrics,
  type DiagCounts,
  type Diagnostic,
  type SizeOf,
  type SummaryEntry,
} from "@condense/core";
import type { BackoffPolicy } from "./backoff.ts";
import type { RenderOutput } from "./client.ts";
import type { Emit } from "./client-events.ts";
import { nextEventLoopTurn, type ScheduleBackground } from "./background-schedule.ts";
import { DiagnosticsReporter } from "./diagnostics-reporter.ts";
import { StateMirror, type StagedChange } from "./state-mirror.ts";
import type { Transport } from "./transport.ts";

export interface RenderSessionOptions {
  transport: Transport;
  sessionPath: string;
  backoff: BackoffPolicy;
  settings(): CondenseSettings;
  /** Render calls a staged delta may wait for its summaries to reach the context (default 3). */
  maxApplyDeferrals?: number;
  /** A newly applied state took `tokens` out of the context (the landed flush's reclaim). */
  onLanded(tokens: number): void;
  /** Message sizes for the metrics (message-sizes.ts). */
  sizeOf?: SizeOf;
  /** When diagnostics are posted and the service's counts read (background-schedule.ts). */
  schedule?: ScheduleBackground;
  emit: Emit;
}

export class RenderSession {
  readonly mirror: StateMirror;
  private readonly reporter: DiagnosticsReporter;
  private metricsCache: ContextMetrics | null = null;
  private reclaimed: { beforeChars: number; afterChars: number } | null = null;
  /**
   * Frozen diagnostic objects already handed to the reporter: the render hands back the same frozen
   * object for a condition that persists (an unresolved chain range reported on every call), and the
   * ledger only grows, so a render whose diagnostics are all in here has nothing fresh and skips the
   * ledger lookup (it builds a key string per diagnostic). Frozen only: they cannot change their key.
   */
  private recordedFrozen = new WeakSet<Diagnostic>();
  private deferrals = 0;
  private measuredVersion = -1;

  constructor(private readonly o: RenderSessionOptions) {
    const { emit } = o;
    // Render diagnostics go to the service (posted once per kind and key, retried until written).
    const background = o.schedule ?? nextEventLoopTurn;
    this.reporter = new DiagnosticsReporter(
      o.transport,
      o.sessionPath,
      o.backoff,
      (error) => emit({ type: "error", where: "diagnostics", error, willRetry: true }),
      background,
    );
    this.mirror = new StateMirror(o.transport, o.sessionPath, (c: StagedChange) => {
      emit({ type: "staged", version: c.version, newSummaries: c.newSummaries });
      // a state change may come with the worker's own diagnostics (backfill-empty); the footer's counts
      // can wait for the background schedule
      background(() => void this.reporter.refreshCounts());
    });
  }

  /** The newest state known: trimming against it avoids resending what is already summarized. */
  knownState(): CondenseState {
    return this.mirror.staged ?? this.mirror.applied;
  }

  /** A new start: the reporter's and the render's memory of what was reported is cleared. */
  reset(): void {
    this.reporter.reset();
    this.recordedFrozen = new WeakSet();
  }

  /** Pull the state (bounded by `timeoutMs`) and apply it: startup is a safe boundary. */
  async initialSync(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`initial sync exceeded ${timeoutMs} ms`)), timeoutMs);
      // Never what keeps a finished process alive (pi exiting while its service still starts).
      timer.unref?.();
    });
    try {
      await Promise.race([this.mirror.pull(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    // Startup is a safe boundary: nothing has been rendered in this process yet.
    this.mirror.apply();
  }

  refreshCounts(): void {
    void this.reporter.refreshCounts();
  }

  /** Apply a staged delta. With `context`, waits (a few calls at most) until its summaries are in it. */
  applyPending(context?: readonly AgentMessage[]): boolean {
    const { mirror } = this;
    if (!mirror.staged) return false;
    // Only this branch's summaries are delivered into it (see core branch-scope); waiting for another
    // branch's would defer every apply until the deferral budget ran out.
    const waiting = context
      ? summariesOnBranch(mirror.pendingSummaries(), occurrenceKeysOf(context))
      : mirror.pendingSummaries();
    if (context && waiting.length > 0 && this.deferrals < (this.o.maxApplyDeferrals ?? 3)) {
      const present = new Set<string>();
      for (const m of context) {
        if (!isSummaryMessage(m)) continue;
        const d = m.details as { summaryId?: unknown; summaryIds?: unknown } | undefined;
        if (typeof d?.summaryId === "string") present.add(d.summaryId);
        if (Array.isArray(d?.summaryIds)) for (const id of d.summaryIds) if (typeof id === "string") present.add(id);
      }
      if (!waiting.every((s) => present.has(s.id))) {
        this.deferrals++;
        return false;
      }
    }
    this.deferrals = 0;
    const changed = mirror.apply();
    if (changed) this.o.emit({ type: "applied", version: mirror.applied.version, summaries: waiting });
    return changed;
  }

  render(messages: readonly AgentMessage[]): RenderOutput {
    const settings = this.o.settings();
    const { mirror } = this;
    const { emit } = this.o;
    if (!settings.enabled) return { messages, pruned: false };
    try {
      // The reclaim figure costs a full serialization of fresh clones; it is measured once per
      // applied state (it moves with flushes), not on every call.
      const measure = this.measuredVersion !== mirror.applied.version;
      const r = pruneMessages(messages, mirror.applied, {
        settings,
        measure,
        ...mirror.renderInputs(messages, settings),
      });
      if (r.pruned && measure) {
        // What this state version takes out beyond the last one measured: the landed flush's reclaim.
        const reclaim = this.reclaimed;
        const before = reclaim ? reclaim.beforeChars - reclaim.afterChars : 0;
        this.reclaimed = { beforeChars: r.beforeChars, afterChars: r.afterChars };
        this.measuredVersion = mirror.applied.version;
        this.o.onLanded(tokensOfChars(r.beforeChars - r.afterChars - before));
      }
      if (r.diagnostics.length > 0 && !this.allRecorded(r.diagnostics)) {
        const fresh = this.reporter.report(r.diagnostics);
        for (const d of r.diagnostics) if (Object.isFrozen(d)) this.recordedFrozen.add(d);
        if (fresh.length > 0) emit({ type: "diagnostics", diagnostics: fresh });
      }
      // The summaries this session's service delivered are left out too: the request is the one the
      // agent would send without Condense (a summary from another recording stays, it is the agent's).
      if (settings.shadowMode)
        return { messages: this.withoutOwnSummaries(messages), pruned: false, shadow: r.messages };
      return { messages: r.messages, pruned: r.pruned };
    } catch (err) {
      // Fail open: the raw messages are always a valid request (their tool pairing is the host's own).
      emit({ type: "error", where: "render", error: err });
      return { messages, pruned: false, failedOpen: err instanceof Error ? err.message : String(err) };
    }
  }

  refreshMetrics(branch: readonly AgentMessage[]): ContextMetrics | null {
    const m = this.safeMetrics(branch);
    if (m) this.metricsCache = m;
    return this.metricsCache;
  }

  /** Start: the metrics of the branch as it is (null when they cannot be computed). */
  resetMetrics(branch: readonly AgentMessage[]): void {
    this.metricsCache = this.safeMetrics(branch);
  }

  /** A flush request's metrics snapshot is the newest measure of the context. */
  noteMetrics(m: ContextMetrics): void {
    this.metricsCache = m;
  }
  get metrics(): ContextMetrics | null {
    return this.metricsCache;
  }
  get reclaim(): { beforeChars: number; afterChars: number } | null {
    return this.reclaimed;
  }
  get diag(): DiagCounts {
    return this.reporter.counts;
  }
  get stagedSummaries(): SummaryEntry[] {
    return this.mirror.pendingSummaries();
  }

  footerText(): string {
    return statusLineText({
      enabled: this.o.settings().enabled,
      reclaim: this.reclaimed,
      diag: this.reporter.counts,
      metrics: this.metricsCache,
    });
  }

  close(): void {
    this.reporter.close();
  }

  private allRecorded(ds: readonly Diagnostic[]): boolean {
    for (let i = 0; i < ds.length; i++) if (!this.recordedFrozen.has(ds[i]!)) return false;
    return true;
  }

  private withoutOwnSummaries(messages: readonly AgentMessage[]): readonly AgentMessage[] {
    const { mirror } = this;
    const own = (m: AgentMessage) => {
      if (!isSummaryMessage(m)) return false;
      const id = (m.details as { summaryId?: unknown } | undefined)?.summaryId;
      return (
        typeof id === "string" && (mirror.applied.summaryById.has(id) || (mirror.staged?.summaryById.has(id) ?? false))
      );
    };
    return messages.some(own) ? messages.filter((m) => !own(m)) : messages;
  }

  private safeMetrics(branch: readonly AgentMessage[]): ContextMetrics | null {
    try {
      return computeContextMetrics(branch, this.mirror.applied, this.o.settings(), {
        ...(this.o.sizeOf ? { sizeOf: this.o.sizeOf } : {}),
      });
    } catch (error) {
      this.o.emit({ type: "error", where: "metrics", error });
      return null;
    }
  }
}
