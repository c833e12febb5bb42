/**
 * Retries one model on transient failures with p-retry: exponential, jittered backoff, plus the wait a
 * 429/503 asked for in Retry-After. A Retry-After longer than `maxRetryAfterMs` is not waited out: the
 * provider is saying it is down for a while, so the call moves on to the fallback. Auth and unusable
 * outcomes return at once (no blind retry). Every attempt is handed to `onAttempt` as it finishes.
 */
import pRetry from "p-retry";
import type { SummarizerConfig } from "./config.ts";
import type { ResolvedModel } from "./model-resolve.ts";
import { runAttempt, type AttemptOptions, type AttemptResult } from "./provider-attempt.ts";
import { SummarizerAbortError } from "./types.ts";

class TransientAttempt extends Error {
  constructor(readonly attempt: AttemptResult) {
    super(attempt.detail ?? "transient summarizer failure");
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SummarizerAbortError(signal.reason));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SummarizerAbortError(signal?.reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export type RetryPolicy = Pick<SummarizerConfig, "retries" | "retryMinDelayMs" | "retryMaxDelayMs" | "maxRetryAfterMs">;

/** Resolves with the last attempt (ok, or the failure that ended the retries). */
export async function attemptWithRetries(
  target: ResolvedModel,
  prompt: string,
  attemptOptions: AttemptOptions,
  policy: RetryPolicy,
  onAttempt: (attempt: AttemptResult) => void,
): Promise<AttemptResult> {
  const signal = attemptOptions.signal;
  try {
    return await pRetry(
      async () => {
        const attempt = await runAttempt(target, prompt, attemptOptions);
        onAttempt(attempt);
        if (attempt.outcome === "transient") throw new TransientAttempt(attempt);
        return attempt;
      },
      {
        retries: policy.retries,
        minTimeout: policy.retryMinDelayMs,
        maxTimeout: Math.max(policy.retryMinDelayMs, policy.retryMaxDelayMs),
        factor: 2,
        randomize: true,
        ...(signal ? { signal } : {}),
        shouldRetry: ({ error }) =>
          error instanceof TransientAttempt &&
          (error.attempt.retryAfterMs === undefined || error.attempt.retryAfterMs <= policy.maxRetryAfterMs),
        // p-retry adds its own jittered backoff after this; waiting here first honours Retry-After.
        onFailedAttempt: async ({ error, retriesLeft }) => {
          const wait = error instanceof TransientAttempt ? error.attempt.retryAfterMs : undefined;
          if (wait !== undefined && retriesLeft > 0 && wait <= policy.maxRetryAfterMs) await sleep(wait, signal);
        },
      },
    );
  } catch (error) {
    if (signal?.aborted) throw new SummarizerAbortError(signal.reason);
    if (error instanceof TransientAttempt) return error.attempt;
    throw error;
  }
}
