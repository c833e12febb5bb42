/**
 * The flush scheduler: the trigger state (trigger-state.ts) decides, on each turn and message end, on
 * a cold start or the manual command, whether to ask for a flush; this part builds that flush request
 * (off the agent's turn for automatic triggers) and hands it to the capture outbox.
 */
import {
  capturePendingBatches,
  type AgentMessage,
  type CallUsage,
  type CondenseSettings,
  type CondenseState,
  type ContextMetrics,
  type ContextUsage,
  type FlushTrigger,
  type SizeOf,
} from "@condense/core";
import { nextEventLoopTurn, type ScheduleBackground } from "./background-schedule.ts";
import type { CaptureOutbox } from "./capture-outbox.ts";
import { flushChains, type FlushChains } from "./chain-candidates.ts";
import type { Emit } from "./client-events.ts";
import { buildFlushRequest } from "./flush-request.ts";
import type { SummarizerHandOff } from "./summarizer-handoff.ts";
import { TriggerState, type ColdReason, type TriggerDecision } from "./trigger-state.ts";

export interface FlushSchedulerDeps {
  outbox: CaptureOutbox;
  handOff: SummarizerHandOff | null;
  /** The newest state known (staged or applied). */
  knownState(): CondenseState;
  settings(): CondenseSettings;
  now(): number;
  /** A flush request's metrics snapshot: the newest context metrics. */
  onMetrics(metrics: ContextMetrics): void;
  /** Message sizes for the metrics snapshot (message-sizes.ts). */
  sizeOf?: SizeOf;
  /** When a deferred flush request is built (background-schedule.ts; default: the next event-loop turn). */
  schedule?: ScheduleBackground;
  emit: Emit;
}

export class FlushScheduler {
  readonly trigger = new TriggerState();
  /** An automatic trigger's request, built on the next event-loop turn (see postFlush). */
  private pendingBuild: { run: () => void } | null = null;

  constructor(private readonly deps: FlushSchedulerDeps) {}

  /** Build a deferred request now (before a drain, a close or the next request). */
  runPendingBuild(): void {
    const p = this.pendingBuild;
    if (!p) return;
    this.pendingBuild = null;
    p.run();
  }

  turnEnd(
    toolResultCount: number,
    pushedThisTurn: boolean,
    usage: ContextUsage | null | undefined,
    branch: () => readonly AgentMessage[],
  ): TriggerDecision {
    const { trigger } = this;
    trigger.calibrate(this.deps.knownState());
    const d = trigger.turnEnd(this.deps.settings(), toolResultCount, pushedThisTurn, usage);
    if (d.flush && d.trigger) this.postFlush(d.trigger, branch(), undefined, usage, true);
    return d;
  }

  messageEnd(
    message: AgentMessage,
    branch: () => readonly AgentMessage[],
    usage?: ContextUsage | null | (() => ContextUsage | null | undefined),
    callUsage?: CallUsage | null,
  ): TriggerDecision {
    const { trigger } = this;
    trigger.calibrate(this.deps.knownState());
    const settings = this.deps.settings();
    const state = this.deps.knownState();
    const branchOnce = once(branch);
    // The gate's chains (detected and sized on the branch with this reply) go to the request's build.
    let sized: FlushChains | undefined;
    const d = trigger.messageEnd(settings, message, callUsage, () => {
      sized = flushChains(branchOnce(), message, state, settings, true);
      return sized.candidates;
    });
    if (d.flush && d.trigger)
      this.postFlush(
        d.trigger,
        branchOnce(),
        d.closingMessage,
        typeof usage === "function" ? usage() : usage,
        true,
        sized,
      );
    return d;
  }

  markCold(reason: ColdReason, branch: () => readonly AgentMessage[]): TriggerDecision {
    const { trigger } = this;
    trigger.calibrate(this.deps.knownState());
    const settings = this.deps.settings();
    const state = this.deps.knownState();
    const branchOnce = once(branch);
    let sized: FlushChains | undefined;
    const d = trigger.markCold(settings, reason, () => {
      sized = flushChains(branchOnce(), undefined, state, settings, true);
      return sized.candidates;
    });
    if (d.flush && d.trigger) this.postFlush(d.trigger, branchOnce(), undefined, null, true, sized);
    return d;
  }

  flushNow(branch: readonly AgentMessage[], usage?: ContextUsage | null): TriggerDecision & { captured: number } {
    const settings = this.deps.settings();
    const captured = settings.enabled
      ? capturePendingBatches(branch, this.deps.knownState(), settings, { now: this.deps.now() })
      : [];
    const d = this.trigger.manual(settings.enabled, captured.length);
    if (d.flush) {
      // The manual command also resends what the branch holds, in case a capture was lost.
      if (captured.length > 0) this.resendFromBranch(branch);
      this.postFlush("manual", branch, undefined, usage);
    }
    return { ...d, captured: captured.length };
  }

  private resendFromBranch(branch: readonly AgentMessage[]): number {
    const batches = capturePendingBatches(branch, this.deps.knownState(), this.deps.settings(), {
      now: this.deps.now(),
    });
    this.deps.outbox.enqueueBatches(batches);
    return batches.length;
  }

  /**
   * Hand a flush request to the outbox. Building it (metrics snapshot, chain detection, grace keys) reads
   * the whole branch and costs milliseconds on a long session, so an automatic trigger (`defer`) builds
   * it in the background (`schedule`), while the agent waits on its model, from the branch, state and
   * settings as they are now; `flushing` stays set until then (CAP-TRIGGER-12). The manual command
   * builds it at once.
   */
  private postFlush(
    trig: FlushTrigger,
    branch: readonly AgentMessage[],
    closingMessage?: AgentMessage,
    usage?: ContextUsage | null,
    defer = false,
    chains?: FlushChains,
  ): void {
    const { trigger, deps } = this;
    this.runPendingBuild();
    // What the cost model expects of this flush (telemetry), taken before the pending work is handed over.
    const econ =
      trig === "roi" && trigger.lastRoi
        ? trigger.lastRoi
        : trigger.estimate(closingMessage ? "message-end" : "turn-end", deps.settings().summarizerModel);
    // A `roi` flush sizes the chains it could compress against the inputs the policy decided on.
    const roiInput = trig === "roi" ? trigger.lastRoiInput : null;
    const expectedOf = (e: typeof econ) => ({
      expectedCacheWriteTokens: Math.round(e.inputs.rewriteTokens),
      expectedCacheReadSavedTokens: Math.round(
        e.inputs.reclaimTokens * (e.inputs.remainingCalls + 1) * e.inputs.laterWarm,
      ),
      ...(trigger.reuse.lastModel ? { agentModel: trigger.reuse.lastModel } : {}),
    });
    trigger.flushing = true;
    trigger.flushStarted();
    const state = deps.knownState();
    const current = deps.settings();
    const build = () => {
      const t0 = performance.now();
      try {
        const built = buildFlushRequest(
          {
            trigger: trig,
            branch,
            ...(closingMessage ? { closingMessage } : {}),
            ...(usage ? { usage } : {}),
            ...(roiInput ? { roi: roiInput } : {}),
            ...(chains ? { chains } : {}),
          },
          state,
          current,
          deps.sizeOf,
        );
        const body = built.body;
        trigger.inFlightChainReclaim = built.chainReclaimTokens;
        if (deps.handOff?.active) body.summarizerHandedOff = true;
        body.metrics = { ...body.metrics, ...expectedOf(built.roi ?? econ) };
        deps.onMetrics(body.metrics);
        deps.outbox.enqueueFlush(body);
        deps.emit({ type: "flush-queued", trigger: trig, buildMs: performance.now() - t0 });
      } catch (error) {
        deps.emit({ type: "error", where: "flush request", error });
      } finally {
        trigger.flushing = false;
      }
    };
    if (!defer) {
      build();
      return;
    }
    const pending = { run: build };
    this.pendingBuild = pending;
    // Built already (a drain, a close or the next flush ran it) when the schedule gets to it: nothing left.
    (deps.schedule ?? nextEventLoopTurn)(() => {
      if (this.pendingBuild === pending) this.runPendingBuild();
    });
  }
}

/** `f` called at most once: the branch the gate sized is the branch the request is built from. */
function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}
