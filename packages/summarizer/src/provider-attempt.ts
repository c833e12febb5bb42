/**
 * One streamed completion against one model, bounded by an idle timer (re-armed by every stream
 * event, so it also bounds time to first token) and a ceiling (CAP-SUM-6), and classified per
 * CAP-SUM-7: ok, transient (retry / fall back), auth (a key problem: retrying cannot help), unusable
 * (empty or truncated output: retrying the same input blindly would pay for the same failure).
 * A caller abort is not an outcome: it rejects with SummarizerAbortError.
 */
import type { AssistantMessage, SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { SummarizerConfig } from "./config.ts";
import { piAi } from "./pi-ai.ts";
import type { ResolvedModel } from "./model-resolve.ts";
import { observeResponses } from "./response-observer.ts";
import { SummarizerAbortError, zeroUsage, type AttemptOutcome, type SummaryUsage } from "./types.ts";

export interface AttemptResult {
  outcome: AttemptOutcome;
  text: string;
  detail?: string;
  status?: number;
  timedOut?: "idle" | "ceiling";
  retryAfterMs?: number;
  usage: SummaryUsage;
  cost: number;
  durationMs: number;
}

export interface AttemptOptions {
  idleMs: number;
  ceilingMs: number;
  thinking: SummarizerConfig["summarizerThinking"];
  maxOutputTokens: number;
  signal?: AbortSignal;
}

/** 20000 -> "20", 1500 -> "1.5": test timeouts are sub-second, production ones whole seconds. */
export function formatSeconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(2)));
}

const STATUS_PREFIX = /^(\d{3})\b/;

/** Classify a provider-side failure from the HTTP status (observed, else the SDK's "NNN ..." message). */
export function classifyFailure(status: number | undefined): AttemptOutcome {
  if (status === undefined) return "transient"; // network error, reset stream, provider abort
  if (status === 401 || status === 403) return "auth";
  if (status === 408 || status === 409 || status === 429 || status >= 500) return "transient";
  if (status >= 400) return "unusable"; // the request itself was refused (400/404/413/422): same input, same answer
  return "transient";
}

function usageOf(message: AssistantMessage | undefined): { usage: SummaryUsage; cost: number } {
  if (!message) return { usage: zeroUsage(), cost: 0 };
  const u = message.usage;
  return {
    usage: {
      input: u.input,
      output: u.output,
      cacheRead: u.cacheRead,
      cacheWrite: u.cacheWrite,
      totalTokens: u.totalTokens,
    },
    cost: u.cost.total,
  };
}

export async function runAttempt(target: ResolvedModel, prompt: string, opts: AttemptOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (opts.signal?.aborted) throw new SummarizerAbortError(opts.signal.reason);
  // CAP-SUM-5: auth is resolved before the stream and the timers; a failure is `auth`, never retried.
  if (target.authError) {
    return { outcome: "auth", text: "", detail: target.authError, usage: zeroUsage(), cost: 0, durationMs: elapsed() };
  }
  if (!target.apiKey && !target.keyOptional) {
    return {
      outcome: "auth",
      text: "",
      detail: `no API key for provider ${target.model.provider}`,
      usage: zeroUsage(),
      cost: 0,
      durationMs: elapsed(),
    };
  }

  const local = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, local.signal]) : local.signal;
  let timedOut: "idle" | "ceiling" | undefined;
  let idle: NodeJS.Timeout | undefined;
  let ceiling: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (opts.idleMs <= 0) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      timedOut ??= "idle";
      local.abort();
    }, opts.idleMs);
  };

  // CAP-SUM-4: "default" and "off" both send no reasoning level (pi-ai 0.73 has no distinct "off" wire form).
  const options: SimpleStreamOptions = {
    // pi-ai's providers refuse an empty key; a keyless endpoint ignores whatever is sent.
    apiKey: target.apiKey || "none",
    ...(target.headers && Object.keys(target.headers).length > 0 ? { headers: target.headers } : {}),
    signal,
    maxTokens: Math.min(opts.maxOutputTokens, target.model.maxTokens || opts.maxOutputTokens),
    maxRetries: 0, // retries are ours (p-retry), so Retry-After and the fallback stay under one policy
  };
  if (opts.thinking !== "default" && opts.thinking !== "off") options.reasoning = opts.thinking;

  let final: AssistantMessage | undefined;
  const { observation, result: stream } = observeResponses(() =>
    piAi().streamSimple(
      target.model,
      { messages: [{ role: "user", content: prompt, timestamp: Date.now() }] },
      options,
    ),
  );
  armIdle();
  if (opts.ceilingMs > 0)
    ceiling = setTimeout(() => {
      timedOut ??= "ceiling";
      local.abort();
    }, opts.ceilingMs);
  try {
    for await (const event of stream) {
      armIdle();
      if (event.type === "done") final = event.message;
      else if (event.type === "error") final = event.error;
    }
  } catch (error) {
    // The event stream reports failures as events; a throw here is a library fault, still transient.
    final = undefined;
    if (opts.signal?.aborted) throw new SummarizerAbortError(opts.signal.reason);
    return {
      outcome: "transient",
      text: "",
      detail: String(error),
      usage: zeroUsage(),
      cost: 0,
      durationMs: elapsed(),
    };
  } finally {
    clearTimeout(idle);
    clearTimeout(ceiling);
  }

  if (opts.signal?.aborted) throw new SummarizerAbortError(opts.signal.reason);
  const { usage, cost } = usageOf(final);
  const base = {
    usage,
    cost,
    durationMs: elapsed(),
    ...(observation.status !== undefined ? { status: observation.status } : {}),
  };
  if (timedOut) {
    const seconds = formatSeconds(timedOut === "idle" ? opts.idleMs : opts.ceilingMs);
    const detail =
      timedOut === "idle"
        ? `summarizer ${target.label} stalled (no output for ${seconds}s)`
        : `summarizer ${target.label} exceeded ${seconds}s ceiling`;
    return { ...base, outcome: "transient", text: "", detail, timedOut };
  }
  if (!final || final.stopReason === "error" || final.stopReason === "aborted") {
    const message = final?.errorMessage ?? "provider stream ended without a message";
    const httpFailure = observation.status !== undefined && observation.status >= 400;
    const status = httpFailure ? observation.status : Number(STATUS_PREFIX.exec(message)?.[1] ?? NaN) || undefined;
    return {
      ...base,
      ...(status !== undefined ? { status } : {}),
      outcome: classifyFailure(status),
      text: "",
      detail: message,
      ...(httpFailure && observation.retryAfterMs !== undefined ? { retryAfterMs: observation.retryAfterMs } : {}),
    };
  }
  const text = final.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
  if (final.stopReason === "length") return { ...base, outcome: "unusable", text, detail: "truncated" };
  if (!text.trim()) return { ...base, outcome: "unusable", text: "", detail: "empty" };
  return { ...base, outcome: "ok", text };
}
