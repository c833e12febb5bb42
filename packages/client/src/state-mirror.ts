/**
 * The local mirror of the session's condensation state. Deltas are pulled (`GET state?since=`) in the
 * background and *staged*; the render path keeps using the applied state until `applyPending()` is
 * called at a safe boundary (the start of a turn), so one flush costs one prompt-cache rewrite and a
 * provider call never sees state change under it. A version gap (the service lost or compacted
 * history) is healed by refetching a full snapshot.
 *
 * The mirror also holds what renders of the applied state share: the render memo (stubs, chain
 * bodies, sizes of that state version) and the render policy, the error-purge and recovery-grace
 * decisions, taken once over the history of the first render after a state is applied and kept
 * until the next one. So the rendered prefix moves only when the state does, never because turns
 * passed in between (which would rewrite the provider's cached prefix between two flushes).
 */
import {
  applyDelta,
  createRenderMemo,
  createState,
  decideRenderPolicy,
  type AgentMessage,
  type CondenseSettings,
  type CondenseState,
  type RenderMemo,
  type RenderPolicy,
  type StateDelta,
  type SummaryEntry,
} from "@condense/core";
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
  private memo: RenderMemo | null = null;
  /** The policy of the applied state, for the settings it was decided under; null until the first render. */
  private policy: { settings: CondenseSettings; policy: RenderPolicy } | null = null;
  /**
   * The applied state came from the local state cache (state-cache.ts), not from the service: the
   * next pull asks for a full snapshot, which supersedes it whatever its version (the service's data
   * may have been wiped, or moved on while this process was away).
   */
  private provisional = false;
  /** A render used the applied state (a cache loaded after that is not applied under it). */
  private rendered = false;
  /**
   * Set while the state cache's read is pending: finishes it synchronously (and seeds) on the first
   * read of the applied state, so a render that comes before the read completes still uses it.
   */
  pendingSeed: (() => void) | null = null;
  /** Called with each state `apply()` makes the applied one (the state cache writes it). */
  onApplied: ((state: CondenseState) => void) | null = null;

  constructor(
    private readonly transport: Transport,
    private readonly sessionPath: string,
    private readonly onStaged?: (change: StagedChange) => void,
  ) {}

  get applied(): CondenseState {
    if (this.pendingSeed) this.pendingSeed();
    return this.appliedState;
  }
  get staged(): CondenseState | null {
    return this.stagedState;
  }
  /** The newest version this mirror knows (staged or applied). */
  get knownVersion(): number {
    return (this.stagedState ?? this.appliedState).version;
  }

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

  /**
   * Render with a state from the local cache until the first sync: only while nothing has been pulled,
   * staged or rendered, so the prefix a render already sent never moves under the agent (a pull already
   * in flight asked for a full snapshot, which supersedes the seed). Returns true when it was seeded.
   */
  seed(state: CondenseState): boolean {
    if (this.lastPullAt !== null || this.stagedState || this.rendered) return false;
    if (this.appliedState.version !== 0 || state.version === 0) return false;
    this.appliedState = state;
    this.provisional = true;
    this.policy = null;
    return true;
  }

  /** The applied state is the cached one and no sync has superseded it yet. */
  get seeded(): boolean {
    return this.provisional;
  }

  private async pullOnce(signal?: AbortSignal): Promise<boolean> {
    const base = this.stagedState ?? (this.provisional ? createState() : this.appliedState);
    let delta: StateDelta;
    try {
      delta = await this.fetch(base.version, signal);
    } catch (err) {
      // The session is created by its first capture; before that there is no state to mirror.
      if (err instanceof CondenseHttpError && err.status === 404) {
        this.lastPullError = null;
        // The service has nothing for a session the cache had state for (its data was wiped): the
        // service wins, so the empty state is staged and applied at the next boundary.
        if (this.provisional) return this.supersedeSeed(createState());
        return false;
      }
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
    // A pull that started before the seed asked from version 0 too: its snapshot supersedes the seed.
    if (this.provisional && base.version === 0) return this.supersedeSeed(result.state);
    this.stagedState = result.state;
    this.onStaged?.({ newSummaries: this.pendingSummaries(), version: result.state.version });
    return true;
  }

  private supersedeSeed(state: CondenseState): boolean {
    this.provisional = false;
    this.lastPullAt ??= Date.now();
    this.stagedState = state;
    this.onStaged?.({ newSummaries: this.pendingSummaries(), version: state.version });
    return true;
  }

  private async fetch(since: number, signal?: AbortSignal): Promise<StateDelta> {
    try {
      const d = await this.transport.request<StateDelta>(
        "GET",
        `${this.sessionPath}/state?since=${since}`,
        undefined,
        signal,
      );
      this.lastPullError = null;
      return d;
    } catch (err) {
      this.lastPullError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }

  /**
   * Make the staged state the one rendering uses. Returns true when the applied state changed. Every
   * call is a safe boundary (a turn's start, the session's start), so the render policy is decided
   * afresh by the next render even when no new state was staged.
   */
  apply(): boolean {
    this.policy = null;
    if (!this.stagedState) return false;
    this.appliedState = this.stagedState;
    this.stagedState = null;
    this.rendered = false;
    this.onApplied?.(this.appliedState);
    return true;
  }

  /**
   * The memo and the policy to render the applied state with (`pruneMessages` options). The policy is
   * decided over `messages` on the first render after `apply()`, or when the settings change; later
   * renders reuse it whatever their messages.
   */
  renderInputs(
    messages: readonly AgentMessage[],
    settings: CondenseSettings,
  ): { memo: RenderMemo; policy: RenderPolicy } {
    this.rendered = true;
    if (this.memo?.state !== this.appliedState) this.memo = createRenderMemo(this.appliedState);
    if (this.policy?.settings !== settings) this.policy = { settings, policy: decideRenderPolicy(messages, settings) };
    return { memo: this.memo, policy: this.policy.policy };
  }
}
