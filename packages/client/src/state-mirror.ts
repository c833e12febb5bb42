/**
 * The local mirror of the session's condensation state. Deltas are pulled (`GET state?since=`) in the
 * background and *staged*; the render path keeps using the applied state until `applyPending()` is
 * called at a safe boundary (the start of a turn), so one flush costs one prompt-cache rewrite and a
 * provider call never sees state change under it. A version gap (the service lost or compacted
 * history) is healed by refetching a full snapshot.
 */
import { applyDelta, createState, type CondenseState, type StateDelta, type SummaryEntry } from "@condense/core";
import { CondenseHttpError, type Transport } from "./transport.ts";

export interface StagedChange {
  /** Summaries in the staged state that the applied state does not have yet. */
  newSummaries: SummaryEntry[];
  version: number;
}

export class StateMirror {
  private appliedState: CondenseState = createState();
  private stagedState: CondenseState | null = null;
  private pulling: Promise<boolean> | null = null;
  /** Set when a pull is requested while one is running, so a version announced mid-pull is not missed. */
  private again = false;
  lastPullAt: number | null = null;
  lastPullError: string | null = null;

  constructor(
    private readonly transport: Transport,
    private readonly sessionPath: string,
    private readonly onStaged?: (change: StagedChange) => void,
  ) {}

  get applied(): CondenseState { return this.appliedState; }
  get staged(): CondenseState | null { return this.stagedState; }
  /** The newest version this mirror knows (staged or applied). */
  get knownVersion(): number { return (this.stagedState ?? this.appliedState).version; }

  /** Summaries staged but not applied yet. */
  pendingSummaries(): SummaryEntry[] {
    if (!this.stagedState) return [];
    const have = this.appliedState.summaryById;
    return this.stagedState.summaries.filter((s) => !have.has(s.id));
  }

  /**
   * Pull what is new since the known version. Resolves true when something was staged. Concurrent
   * callers share one request; a call that arrives mid-pull schedules one more pull afterwards.
   */
  pull(signal?: AbortSignal): Promise<boolean> {
    if (this.pulling) {
      this.again = true;
      return this.pulling;
    }
    this.pulling = (async () => {
      let staged = false;
      try {
        do {
          this.again = false;
          staged = (await this.pullOnce(signal)) || staged;
        } while (this.again && !signal?.aborted);
      } finally {
        this.pulling = null;
      }
      return staged;
    })();
    return this.pulling;
  }

  private async pullOnce(signal?: AbortSignal): Promise<boolean> {
    const base = this.stagedState ?? this.appliedState;
    let delta: StateDelta;
    try {
      delta = await this.fetch(base.version, signal);
    } catch (err) {
      // The session is created by its first capture; before that there is no state to mirror.
      if (err instanceof CondenseHttpError && err.status === 404) { this.lastPullError = null; return false; }
      throw err;
    }
    let result = applyDelta(base, delta);
    if (!result.ok && result.reason === "version-gap") {
      delta = await this.fetch(0, signal);
      result = applyDelta(base, delta);
    }
    this.lastPullAt = Date.now();
    if (!result.ok) throw new Error(`state delta refused: ${result.message}`);
    if (!result.changed) return false;
    this.stagedState = result.state;
    this.onStaged?.({ newSummaries: this.pendingSummaries(), version: result.state.version });
    return true;
  }

  private async fetch(since: number, signal?: AbortSignal): Promise<StateDelta> {
    try {
      const d = await this.transport.request<StateDelta>("GET", `${this.sessionPath}/state?since=${since}`, undefined, signal);
      this.lastPullError = null;
      return d;
    } catch (err) {
      this.lastPullError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  /** Make the staged state the one rendering uses. Returns true when the applied state changed. */
  apply(): boolean {
    if (!this.stagedState) return false;
    this.appliedState = this.stagedState;
    this.stagedState = null;
    return true;
  }
}
