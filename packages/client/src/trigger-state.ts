/**
 * The agent-side flags the trigger policy needs between events (CAP-TRIGGER-2/6/9): how many live
 * batches were queued since the last flush, the usage fraction of the previous gate-evaluating turn,
 * and whether a reload found unflushed work. The decisions themselves are core's pure functions; this
 * class only holds what they read and applies what they return.
 */
import {
  decideManual,
  decideMessageEnd,
  decideRearm,
  decideTurnEnd,
  type AgentMessage,
  type CondenseSettings,
  type ContextUsage,
  type FlushTrigger,
  type RearmProbeResult,
} from "@condense/core";

export interface TriggerDecision {
  flush: boolean;
  trigger?: FlushTrigger;
  notice?: string;
  closingMessage?: AgentMessage;
}

export class TriggerState {
  pendingCount = 0;
  previousFraction: number | null = null;
  rearmed = false;
  /** True while a flush request is being built and handed to the outbox (CAP-TRIGGER-12). */
  flushing = false;

  /** session_start / session_tree: the queue, the previous fraction and the flag start over. */
  reset(): void {
    this.pendingCount = 0;
    this.previousFraction = null;
    this.rearmed = false;
  }

  rearm(enabled: boolean, probe: RearmProbeResult): string | undefined {
    const d = decideRearm(enabled, probe);
    this.rearmed = d.rearmed;
    return d.error;
  }

  /** A live batch was queued this turn. */
  pushed(): void {
    this.pendingCount++;
  }

  turnEnd(settings: CondenseSettings, toolResultCount: number, pushedThisTurn: boolean, usage: ContextUsage | null | undefined): TriggerDecision {
    const d = decideTurnEnd({
      enabled: settings.enabled,
      toolResultCount,
      pushedThisTurn,
      pendingCount: this.pendingCount,
      rearmed: this.rearmed,
      flushing: this.flushing,
      usage,
      previousFraction: this.previousFraction,
      settings,
    });
    this.previousFraction = d.nextPreviousFraction;
    return d.flush ? { flush: true, trigger: d.trigger!, ...(d.notice ? { notice: d.notice } : {}) } : { flush: false };
  }

  messageEnd(settings: CondenseSettings, message: AgentMessage): TriggerDecision {
    const d = decideMessageEnd(message, settings);
    return d.flush ? { flush: true, trigger: "message-end", ...(d.closingMessage ? { closingMessage: d.closingMessage } : {}) } : { flush: false };
  }

  manual(enabled: boolean, capturedBatches: number): TriggerDecision {
    const d = decideManual(enabled, capturedBatches);
    return { flush: d.run, ...(d.trigger ? { trigger: d.trigger } : {}), ...(d.notice ? { notice: d.notice } : {}) };
  }

  /** Flush entry (CAP-FLUSH-1): the rearm flag clears and the live queue is handed over. */
  flushStarted(): void {
    this.rearmed = false;
    this.pendingCount = 0;
  }
}
