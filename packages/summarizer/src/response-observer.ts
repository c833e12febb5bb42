/**
 * Sees the HTTP status and Retry-After of the provider responses made inside one summarizer attempt.
 * pi-ai turns a failed response into an error message and drops its headers, and its SDK clients take
 * `globalThis.fetch` when they are built (once per call). So we wrap that fetch once, pass every
 * request and response through untouched, and record status/Retry-After only when the call runs
 * inside `observeResponses` (AsyncLocalStorage), so other code in the process is not affected.
 * Without this, a 429's Retry-After could not be honoured.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface ResponseObservation {
  status?: number;
  retryAfterMs?: number;
}

const store = new AsyncLocalStorage<ResponseObservation>();
const WRAPPED = Symbol.for("condense.summarizer.responseObserver");

/** Retry-After is seconds or an HTTP date; `retry-after-ms` (OpenAI-style) wins when present. */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function install(): void {
  const current = globalThis.fetch as typeof fetch & { [WRAPPED]?: true };
  if (current[WRAPPED]) return;
  const original = current;
  const observed = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await original(input, init);
    const obs = store.getStore();
    if (obs) {
      obs.status = response.status;
      obs.retryAfterMs = response.ok ? undefined : parseRetryAfter(response.headers);
    }
    return response;
  };
  Object.defineProperty(observed, WRAPPED, { value: true });
  globalThis.fetch = observed as typeof fetch;
}

/** Runs `fn` (which must start the provider call synchronously) with an observation slot. */
export function observeResponses<T>(fn: () => T): { result: T; observation: ResponseObservation } {
  install();
  const observation: ResponseObservation = {};
  const result = store.run(observation, fn);
  return { result, observation };
}
