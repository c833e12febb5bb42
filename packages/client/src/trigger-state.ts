/**
 * The agent-side flags the trigger policy needs between events (CAP-TRIGGER-2/6/9): how many live
 * batches were queued since the last flush, the usage fraction of the previous gate-evaluating turn,
 * and whether a reload found unflushed work. The decisions themselves are core's pure functions; this
 * class only holds what they read and applies what they return.
 */
import {
  DEFAULT_RECLAIM_SHARE,
  decideManual,
  decideMessageEnd,
  decideRearm,
  decideRoi,
  decideRoiGate,
  decideTurnEnd,
  emptyCacheReuse,
  isTextReply,
  observeCall,
  summarizerPriorUsdPerToken,
  tokensOfChars,
  type AgentMessage,
  type CacheReuse,
  type CallUsage,
  type CapturedBatch,
  type ChainCandidate,
  type CondenseSettings,
  type CondenseState,
  type ContextUsage,
  type FlushTrigger,
  type PendingWork,
  type RearmProbeResult,
  type RoiDecision,
  type RoiInput,
} from "@condense/core";

export interface TriggerDecision {
  flush: boolean;
  trigger?: FlushTrigger;
  notice?: string;
  closingMessage?: AgentMessage;
  /** The `roi` policy's estimate at this opportunity, when it made one. */
  roi?: RoiDecision;
}

/**
 * Sizes the chains a flush asked for now could compress (chain-candidates.ts), called only where the
 * `roi` gate weighs them: a reply, a known cold moment.
 */
export type ChainSizer = () => readonly ChainCandidate[];

/** Why the next request is known to start on a cold cache. */
export type ColdReason = "model-switch" | "resume" | "host-compaction";

/** pi-ai's `AssistantMessage.usage`, or null when the message carries none. */
export function usageOfMessage(m: AgentMessage): CallUsage | null {
  const u = (m as { usage?: unknown }).usage as Record<string, unknown> | undefined;
  if (!u || typeof u !== "object") return null;
  const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  const cost = u.cost && typeof u.cost === "object" ? (u.cost as Record<string, unknown>) : undefined;
  const model = m as { model?: unknown; provider?: unknown };
  return {
    input: num(u.input),
    cacheRead: num(u.cacheRead),
    cacheWrite: num(u.cacheWrite),
    output: num(u.output),
    ...(typeof m.timestamp === "number" ? { timestamp: m.timestamp } : {}),
    ...(typeof model.model === "string"
      ? { model: `${typeof model.provider === "string" ? `${model.provider}/` : ""}${model.model}` }
      : {}),
    ...(cost
      ? {
          cost: {
            input: num(cost.input),
            output: num(cost.output),
            cacheRead: num(cost.cacheRead),
            cacheWrite: num(cost.cacheWrite),
          },
        }
      : {}),
  };
}

const batchResultTokens = (b: CapturedBatch) => b.toolCalls.reduce((n, c) => n + tokensOfChars(c.resultText.length), 0);

export class TriggerState {
  pendingCount = 0;
  previousFraction: number | null = null;
  rearmed = false;
  /** True while a flush request is being built and handed to the outbox (CAP-TRIGGER-12). */
  flushing = false;

  /** What the agent's usage reports taught about its cache (the `roi` policy's calibration). */
  reuse: CacheReuse = emptyCacheReuse();
  /** The work queued since the last flush, as the `roi` policy sizes it. */
  pending: PendingWork = { resultTokens: 0, toolCalls: 0, firstResultAt: 0 };
  /** Context tokens of the next request, as far as the client can tell. */
  contextTokens = 0;
  /**
   * A flush landed and the render measured what the new state takes out of the branch (tokens): its
   * share of the tail the flush condensed calibrates the next estimate.
   */
  landed(reclaimedTokens: number): void {
    if (this.inFlightTail === null || !(this.inFlightTail > 0) || !Number.isFinite(reclaimedTokens)) return;
    // Chains compressed in front of the pending work reclaim outside the tail: not part of its share.
    const ownReclaim = reclaimedTokens - this.inFlightChainReclaim;
    const share = Math.min(1, Math.max(0, ownReclaim / this.inFlightTail));
    this.reclaimShare = 0.5 * this.reclaimShare + 0.5 * share;
    this.inFlightTail = null;
    this.inFlightChainReclaim = 0;
  }

  /** Whether the last assistant message ended a reply (the next request follows a user turn). */
  lastWasReply = false;
  /** Set by a known cold-cache moment until the next request is observed. */
  coldReason: ColdReason | null = null;
  /** Measured share of the condensed tail a landed flush reclaimed (moving average). */
  reclaimShare = DEFAULT_RECLAIM_SHARE;
  /** The tail (tokens) the flush in flight condenses, until its reclaim is measured. */
  inFlightTail: number | null = null;
  /** Summarizer USD per summarized token, as the service last reported it; null until it reported one. */
  summarizerUsdPerToken: number | null = null;

  /** The service's reported price, else the prior for the session's `summarizerModel` setting. */
  private summarizerPrice(summarizerModel: string): number {
    return this.summarizerUsdPerToken ?? summarizerPriorUsdPerToken(summarizerModel);
  }
  /** The estimate behind the last flush started (expected cache rewrite and saving, for flush metrics). */
  lastRoi: RoiDecision | null = null;
  /** What that estimate was made from: the flush request sizes its chains against it. */
  lastRoiInput: Omit<RoiInput, "chains"> | null = null;
  /** Estimated reclaim of the chains in front of the pending work the flush in flight compresses. */
  inFlightChainReclaim = 0;

  /** session_start / session_tree: the queue, the previous fraction and the flag start over. */
  reset(): void {
    this.pendingCount = 0;
    this.previousFraction = null;
    this.rearmed = false;
    this.pending = { resultTokens: 0, toolCalls: 0, firstResultAt: 0 };
    this.lastWasReply = false;
    this.lastRoi = null;
    this.lastRoiInput = null;
  }

  /** One assistant message's usage: the request that produced it. */
  observeUsage(usage: CallUsage): void {
    this.reuse = observeCall(this.reuse, usage, this.lastWasReply);
    // A context that shrank (a flush landed in front of the pending work) moves the pending work's
    // start down with it: otherwise the tail looks empty and the next flush is never worth it.
    const shrink = this.contextTokens - this.reuse.lastContextTokens;
    if (shrink > 0 && this.pending.toolCalls > 0)
      this.pending = { ...this.pending, firstResultAt: Math.max(0, this.pending.firstResultAt - shrink) };
    this.contextTokens = this.reuse.lastContextTokens;
    this.coldReason = null;
  }

  /**
   * A cold-cache moment the host knows of (between prompts: the user switched model, the host
   * compacted): the next request rewrites its whole prefix anyway, so a flush asked for now, which
   * lands before the user's next prompt, costs no rewrite. Returns the roi policy's decision.
   */
  markCold(settings: CondenseSettings, reason: ColdReason, chains?: ChainSizer): TriggerDecision {
    this.coldReason = reason;
    return this.roiAt(settings, "message-end", undefined, chains);
  }

  /** Calibrates the reclaim and summarizer estimates from the state the service sent. */
  calibrate(state: CondenseState): void {
    const st = state.stats;
    if (st.callCount > 0 && st.totalInputTokens > 0) this.summarizerUsdPerToken = st.totalCost / st.totalInputTokens;
    // Summaries delivered and nothing billed (the deterministic summarizer, no model call): free.
    else if (state.summaries.length > 0 && st.totalCost === 0) this.summarizerUsdPerToken = 0;
  }

  /**
   * A flush asked for now lands one request later at the earliest (the summarizer runs while the
   * model does): so the request that carries it is cold only by a host event the client was told of
   * (`markCold`), and a reply's flush lands after the user's turn, whose warmth usage forecasts.
   */
  /** The cost model's inputs for flushing the pending work now (no chains: the flush request sizes those). */
  roiInput(at: "turn-end" | "message-end", summarizerModel: string): Omit<RoiInput, "chains"> {
    return {
      reuse: this.reuse,
      pending: this.pending,
      contextTokens: this.contextTokens,
      at,
      coldNow: this.coldReason !== null,
      reclaimShare: this.reclaimShare,
      summarizerUsdPerToken: this.summarizerPrice(summarizerModel),
    };
  }

  /** The cost model's estimate for flushing the pending work now, whatever decided the flush (telemetry). */
  estimate(at: "turn-end" | "message-end" = "turn-end", summarizerModel = "default"): RoiDecision {
    return decideRoi(this.roiInput(at, summarizerModel));
  }

  private roiAt(
    settings: CondenseSettings,
    at: "turn-end" | "message-end",
    closingMessage?: AgentMessage,
    sizeChains?: ChainSizer,
  ): TriggerDecision {
    const roi = this.roiInput(at, settings.summarizerModel);
    // The chains are sized (a render of the branch) only where the gate will weigh them.
    const gateOpen =
      settings.enabled && settings.pruneOn === "agent-message" && settings.flushPolicy === "roi" && !this.flushing;
    const chains = sizeChains && gateOpen ? sizeChains() : [];
    const d = decideRoiGate({
      settings,
      pendingCount: this.pendingCount,
      flushing: this.flushing,
      ...(closingMessage ? { closingMessage } : {}),
      roi,
      ...(chains.length > 0 ? { chains } : {}),
    });
    if (!d.flush) return { flush: false, ...(d.decision ? { roi: d.decision } : {}) };
    this.lastRoi = d.decision ?? null;
    this.lastRoiInput = roi;
    return {
      flush: true,
      trigger: "roi",
      ...(d.closingMessage ? { closingMessage: d.closingMessage } : {}),
      ...(d.decision ? { roi: d.decision } : {}),
    };
  }

  rearm(enabled: boolean, probe: RearmProbeResult): string | undefined {
    const d = decideRearm(enabled, probe);
    this.rearmed = d.rearmed;
    return d.error;
  }

  /** A live batch was queued this turn; its results join the pending work the `roi` policy sizes. */
  pushed(batch?: CapturedBatch): void {
    this.pendingCount++;
    if (!batch) return;
    const tokens = batchResultTokens(batch);
    if (this.pending.toolCalls === 0) this.pending = { ...this.pending, firstResultAt: this.contextTokens };
    this.pending = {
      ...this.pending,
      resultTokens: this.pending.resultTokens + tokens,
      toolCalls: this.pending.toolCalls + batch.toolCalls.length,
    };
    this.contextTokens += tokens;
  }

  turnEnd(
    settings: CondenseSettings,
    toolResultCount: number,
    pushedThisTurn: boolean,
    usage: ContextUsage | null | undefined,
  ): TriggerDecision {
    // Without usage reports, the host's context estimate is the best size the client has.
    if (this.reuse.calls === 0 && usage && typeof usage.tokens === "number")
      this.contextTokens = Math.max(this.contextTokens, usage.tokens);
    // A null token count right after a host compaction: the host rewrote the context anyway.
    if (usage && usage.tokens === null) this.coldReason ??= "host-compaction";
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
    // The budget ceiling (and delta, rearm) win over the cost model.
    if (d.flush) return { flush: true, trigger: d.trigger!, ...(d.notice ? { notice: d.notice } : {}) };
    return this.roiAt(settings, "turn-end");
  }

  /**
   * An assistant message ended. Its usage (the message's own, or `usage` when the caller measured the
   * request itself) calibrates the cost model; a text reply is a flush opportunity (`eager`: always).
   */
  messageEnd(
    settings: CondenseSettings,
    message: AgentMessage,
    usage?: CallUsage | null,
    chains?: ChainSizer,
  ): TriggerDecision {
    const u = usage === undefined ? usageOfMessage(message) : usage;
    if (u) this.observeUsage(u);
    const reply = isTextReply(message);
    const d = decideMessageEnd(message, settings);
    const out: TriggerDecision = d.flush
      ? { flush: true, trigger: "message-end", ...(d.closingMessage ? { closingMessage: d.closingMessage } : {}) }
      : reply
        ? this.roiAt(settings, "message-end", message, chains)
        : { flush: false };
    this.lastWasReply = reply;
    return out;
  }

  manual(enabled: boolean, capturedBatches: number): TriggerDecision {
    const d = decideManual(enabled, capturedBatches);
    return { flush: d.run, ...(d.trigger ? { trigger: d.trigger } : {}), ...(d.notice ? { notice: d.notice } : {}) };
  }

  /** Flush entry (CAP-FLUSH-1): the rearm flag clears and the live queue is handed over. */
  flushStarted(): void {
    this.rearmed = false;
    this.pendingCount = 0;
    if (this.pending.toolCalls > 0) this.inFlightTail = Math.max(0, this.contextTokens - this.pending.firstResultAt);
    this.pending = { resultTokens: 0, toolCalls: 0, firstResultAt: 0 };
  }
}
