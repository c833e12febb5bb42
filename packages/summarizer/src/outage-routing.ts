/**
 * Which model answers a call, fleet-wide (CAP-SUM-9 semantics, shared through a BreakerStore):
 * - normal mode: the primary, with retries. If it fails transiently and the fallback (a fallback model,
 *   or the deterministic summarizer when none is configured) succeeds, the whole fleet switches to the
 *   fallback; the worker that made the switch announces it, once.
 * - fallback mode: the fallback. Once per cooldown, fleet-wide, one call claims the probe and tries the
 *   primary first (a single attempt); success switches the fleet back and is announced once.
 * - auth failures and unusable output change no state and are not retried on the same model.
 * When no model produces a usable text, the caller gets `text: null` and uses the deterministic body:
 * pruning never waits for a provider.
 */
import type { SummarizerConfig } from "./config.ts";
import type { BreakerStore } from "./breaker-store.ts";
import type { SummarizerLogger } from "./logger.ts";
import type { SummarizerMetrics } from "./metrics.ts";
import type { ResolvedModel } from "./model-resolve.ts";
import { attemptWithRetries } from "./model-retry.ts";
import type { AttemptResult } from "./provider-attempt.ts";
import type { BodySource, SummarizerAttempt, SummarizerEvent } from "./types.ts";

export interface RoutedText {
  /** Null: no model produced usable text; the caller builds the deterministic body. */
  text: string | null;
  bodySource: BodySource;
  model: string;
  deterministicReason?: "all-models-failed" | "unusable-output";
  attempts: SummarizerAttempt[];
  events: SummarizerEvent[];
}

export interface OutageRouter {
  route(prompt: string, signal: AbortSignal | undefined, kind: "batch" | "range"): Promise<RoutedText>;
  breakerKey: string;
}

export interface OutageRouterDeps {
  config: SummarizerConfig;
  primary: ResolvedModel;
  fallback: ResolvedModel | null;
  store: BreakerStore;
  logger: SummarizerLogger;
  metrics: SummarizerMetrics;
  now: () => number;
  workerId: string;
  /**
   * Enter fallback mode even when the fallback is the deterministic summarizer (default true: a fleet
   * stops calling a down provider). False for a session's own model without a distinct fallback:
   * the single-attempt path (CAP-SUM-8) keeps no outage state, so every batch tries the model again.
   */
  breakerWithoutFallbackModel?: boolean;
}

export const DETERMINISTIC_LABEL = "deterministic";

export function createOutageRouter(deps: OutageRouterDeps): OutageRouter {
  const { config, primary, fallback, store, logger, metrics, now, workerId } = deps;
  const breakerKey = `breaker:${primary.label}`;
  const fallbackLabel = fallback?.label ?? DETERMINISTIC_LABEL;

  async function tryModel(
    target: ResolvedModel,
    role: "primary" | "fallback",
    probe: boolean,
    prompt: string,
    signal: AbortSignal | undefined,
    kind: string,
    attempts: SummarizerAttempt[],
    events: SummarizerEvent[],
  ): Promise<AttemptResult> {
    const record = (a: AttemptResult) => {
      const entry: SummarizerAttempt = {
        model: target.label,
        role,
        probe,
        outcome: a.outcome,
        durationMs: a.durationMs,
        usage: a.usage,
        cost: a.cost,
        ...(a.detail !== undefined ? { detail: a.detail } : {}),
        ...(a.status !== undefined ? { status: a.status } : {}),
        ...(a.timedOut ? { timedOut: a.timedOut } : {}),
        ...(a.retryAfterMs !== undefined ? { retryAfterMs: a.retryAfterMs } : {}),
      };
      attempts.push(entry);
      metrics.attempts.inc({ model: target.label, outcome: a.outcome });
      metrics.costUsd.inc({ model: target.label }, a.cost);
      for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const)
        metrics.tokens.inc({ model: target.label, kind: k }, a.usage[k]);
      const log = {
        event: "summarizer.attempt",
        workerId,
        kind,
        model: target.label,
        role,
        probe,
        outcome: a.outcome,
        status: a.status,
        timedOut: a.timedOut,
        retryAfterMs: a.retryAfterMs,
        durationMs: a.durationMs,
        inputTokens: a.usage.input,
        outputTokens: a.usage.output,
        cost: a.cost,
        detail: a.detail,
      };
      if (a.outcome === "ok") {
        logger.info(log, "summarizer attempt succeeded");
        return;
      }
      if (a.timedOut) {
        const seconds = (a.timedOut === "idle" ? config.summarizerIdleTimeoutMs : config.summarizerMaxTimeoutMs) / 1000;
        events.push(
          a.timedOut === "idle"
            ? { kind: "stalled", model: target.label, seconds }
            : { kind: "ceiling-exceeded", model: target.label, seconds },
        );
        logger.warn(log, `${a.detail}; attempt abandoned`);
        return;
      }
      events.push({ kind: "attempt-failed", model: target.label, outcome: a.outcome, message: a.detail ?? a.outcome });
      (a.outcome === "unusable" ? logger.info : logger.warn).call(
        logger,
        log,
        `summarizer attempt ${a.outcome}: ${a.detail ?? ""}`,
      );
    };
    const options = {
      idleMs: config.summarizerIdleTimeoutMs,
      ceilingMs: config.summarizerMaxTimeoutMs,
      thinking: config.summarizerThinking,
      maxOutputTokens: config.maxOutputTokens,
      ...(signal ? { signal } : {}),
    };
    // A probe is one attempt: it only asks "is the primary back?", and must not stall the call.
    const policy = probe ? { ...config, retries: 0 } : config;
    return attemptWithRetries(target, prompt, options, policy, record);
  }

  async function announceFallback(events: SummarizerEvent[]): Promise<void> {
    const switched = await store.enterFallback(breakerKey, now(), config.breakerCooldownMs);
    metrics.fallbackActive.set({ primary: primary.label }, 1);
    if (!switched) return;
    metrics.transitions.inc({ primary: primary.label, to: "fallback" });
    events.push({ kind: "fallback-entered", primary: primary.label, fallback: fallbackLabel });
    logger.warn(
      { event: "summarizer.fallback-entered", workerId, primary: primary.label, fallback: fallbackLabel },
      `summarizer model ${primary.label} is failing; the fleet uses ${fallbackLabel} until it recovers`,
    );
  }

  async function announceRecovery(events: SummarizerEvent[]): Promise<void> {
    const switched = await store.recover(breakerKey);
    metrics.fallbackActive.set({ primary: primary.label }, 0);
    if (!switched) return;
    metrics.transitions.inc({ primary: primary.label, to: "primary" });
    events.push({ kind: "primary-recovered", primary: primary.label });
    logger.info(
      { event: "summarizer.primary-recovered", workerId, primary: primary.label },
      `summarizer model ${primary.label} recovered`,
    );
  }

  return {
    breakerKey,
    async route(prompt, signal, kind) {
      const attempts: SummarizerAttempt[] = [];
      const events: SummarizerEvent[] = [];
      const done = (
        text: string | null,
        source: BodySource,
        model: string,
        reason?: RoutedText["deterministicReason"],
      ): RoutedText => ({
        text,
        bodySource: source,
        model,
        attempts,
        events,
        ...(reason ? { deterministicReason: reason } : {}),
      });
      const viaFallback = async (): Promise<RoutedText> => {
        if (!fallback) return done(null, "deterministic", DETERMINISTIC_LABEL, "all-models-failed");
        const fb = await tryModel(fallback, "fallback", false, prompt, signal, kind, attempts, events);
        if (fb.outcome === "ok") return done(fb.text, "llm-fallback", fallback.label);
        return done(
          null,
          "deterministic",
          DETERMINISTIC_LABEL,
          fb.outcome === "unusable" ? "unusable-output" : "all-models-failed",
        );
      };

      const state = await store.read(breakerKey);
      metrics.fallbackActive.set({ primary: primary.label }, state.mode === "fallback" ? 1 : 0);
      if (state.mode === "fallback") {
        if (await store.claimProbe(breakerKey, now(), config.breakerCooldownMs)) {
          logger.info(
            { event: "summarizer.probe", workerId, primary: primary.label },
            `probing summarizer model ${primary.label}`,
          );
          const probe = await tryModel(primary, "primary", true, prompt, signal, kind, attempts, events);
          if (probe.outcome === "ok") {
            await announceRecovery(events);
            return done(probe.text, "llm-primary", primary.label);
          }
          // Still down (or unusable, which proves nothing): the claim already restarted the cooldown.
        }
        return viaFallback();
      }

      const first = await tryModel(primary, "primary", false, prompt, signal, kind, attempts, events);
      if (first.outcome === "ok") return done(first.text, "llm-primary", primary.label);
      if (first.outcome === "unusable") return done(null, "deterministic", DETERMINISTIC_LABEL, "unusable-output");
      const routed = await viaFallback();
      // Only a transient primary failure is an outage; a rejected key is a config problem, not fleet state.
      if (first.outcome === "transient" && (fallback || (deps.breakerWithoutFallbackModel ?? true)))
        await announceFallback(events);
      return routed;
    },
  };
}
