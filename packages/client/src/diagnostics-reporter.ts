/**
 * Render diagnostics leave the agent (CAP-DIAG-3, issue 17 item 4): each (kind, dedup key) pair a
 * render reports is posted to the service once, off the agent's turn, and marked reported only
 * after the write succeeded; a failed write is retried with backoff until it lands. The counts the
 * footer shows are the service's for the session (so the worker's own `backfill-empty` reports show
 * as `b`), never below what this process has written.
 */
import {
  diagCounts,
  emptyLedger,
  markReported,
  unseenDiagnostics,
  type DiagCounts,
  type Diagnostic,
  type DiagnosticKind,
  type DiagnosticsLedger,
} from "@condense/core";
import type { DiagnosticsAnswer } from "@condense/contract";
import { backoffDelay, type BackoffPolicy } from "./backoff.ts";
import { nextEventLoopTurn, type ScheduleBackground } from "./background-schedule.ts";
import type { Transport } from "./transport.ts";

const MAX_PER_POST = 500;

export class DiagnosticsReporter {
  private ledger: DiagnosticsLedger = emptyLedger();
  /** Reported by a render, not yet written; in report order. */
  private pending: Diagnostic[] = [];
  private serverCounts: Partial<Record<DiagnosticKind, number>> = {};
  private sending = false;
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  /** A first send is waiting in the background schedule. */
  private waiting = false;
  private closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly sessionPath: string,
    private readonly backoff: BackoffPolicy,
    private readonly onError: (error: unknown) => void = () => {},
    /** When a first send goes (background-schedule.ts): a render reports inside the host's hook. */
    private readonly background: ScheduleBackground = nextEventLoopTurn,
  ) {}

  /** Queue what is new among `reported`; returns those (first sight in this process), for the host's log. */
  report(reported: readonly Diagnostic[]): Diagnostic[] {
    const fresh = unseenDiagnostics(markReported(this.ledger, this.pending), reported);
    if (fresh.length === 0) return fresh;
    this.pending.push(...fresh);
    this.scheduleFirst();
    return fresh;
  }

  /** Footer counters: the service's per kind, or this process's written ones when higher. */
  get counts(): DiagCounts {
    const local = diagCounts(this.ledger);
    const s = this.serverCounts;
    return {
      u: Math.max(local.u, s["unresolved-range"] ?? 0),
      m: Math.max(local.m, s["range-id-mismatch"] ?? 0),
      o: Math.max(local.o, s["orphan-sweep"] ?? 0),
      b: Math.max(local.b, s["backfill-empty"] ?? 0),
    };
  }

  get unsent(): number {
    return this.pending.length;
  }

  /** Read the service's counts (after a state change: the worker may have reported backfill-empty). */
  async refreshCounts(): Promise<void> {
    try {
      const r = await this.transport.request<DiagnosticsAnswer>("GET", `${this.sessionPath}/diagnostics`);
      this.serverCounts = r.counts as Partial<Record<DiagnosticKind, number>>;
    } catch (error) {
      // a session the service has not seen yet has no counts; anything else is reported
      if ((error as { status?: number }).status !== 404) this.onError(error);
    }
  }

  /** Start over (a new session start): what was written stays written on the service. */
  reset(): void {
    this.ledger = emptyLedger();
    this.serverCounts = {};
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The first send of what a render reported: in the background schedule, never inside the render's hook. */
  private scheduleFirst(): void {
    if (this.timer || this.sending || this.closed || this.waiting) return;
    this.waiting = true;
    this.background(() => {
      this.waiting = false;
      void this.send();
    });
  }

  private schedule(ms: number): void {
    if (this.timer || this.sending || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.send();
    }, ms);
    this.timer.unref?.();
  }

  private async send(): Promise<void> {
    if (this.sending || this.closed || this.pending.length === 0) return;
    this.sending = true;
    const batch = this.pending.slice(0, MAX_PER_POST);
    try {
      const r = await this.transport.request<DiagnosticsAnswer>("POST", `${this.sessionPath}/diagnostics`, {
        diagnostics: batch.map((d) => ({
          kind: d.kind,
          dedupKey: d.dedupKey.slice(0, 300),
          detail: d.detail.slice(0, 2000),
        })),
      });
      this.ledger = markReported(this.ledger, batch);
      this.pending = this.pending.slice(batch.length);
      this.serverCounts = r.counts as Partial<Record<DiagnosticKind, number>>;
      this.failures = 0;
    } catch (error) {
      this.onError(error);
      this.failures++;
    } finally {
      this.sending = false;
    }
    if (this.pending.length > 0) this.schedule(this.failures > 0 ? backoffDelay(this.backoff, this.failures - 1) : 0);
  }
}
