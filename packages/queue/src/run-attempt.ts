/**
 * One attempt of a handler with the job's timeout: the handler's signal aborts when the timeout
 * fires or when the queue gives up on it at close, and the attempt settles at that moment even if
 * the handler ignores the signal (its late result is discarded; commits are idempotent).
 */
import { JobTimeoutError } from "./job-queue.ts";

export async function runAttempt<T>(
  name: string,
  timeoutMs: number,
  closeSignal: AbortSignal,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctrl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onClose = () => ctrl.abort(closeSignal.reason);
  closeSignal.addEventListener("abort", onClose, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    ctrl.signal.addEventListener(
      "abort",
      () => reject(ctrl.signal.reason instanceof Error ? ctrl.signal.reason : new Error(String(ctrl.signal.reason))),
      { once: true },
    );
  });
  aborted.catch(() => {});
  if (timeoutMs > 0) timer = setTimeout(() => ctrl.abort(new JobTimeoutError(name, timeoutMs)), timeoutMs);
  try {
    if (closeSignal.aborted) onClose();
    return await Promise.race([fn(ctrl.signal), aborted]);
  } finally {
    if (timer) clearTimeout(timer);
    closeSignal.removeEventListener("abort", onClose);
  }
}
