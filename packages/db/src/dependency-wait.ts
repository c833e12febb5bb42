/**
 * Starting while a dependency is down (issue 17 item 8): a worker (or the API) that comes up before
 * Postgres or Redis does must not exit at its first connection, or a whole fleet restart turns into
 * crash loops. `untilAvailable` retries the step with capped exponential backoff, logs what it
 * waits for and why on each failure, and keeps `StartupState` current so a readiness probe can say
 * it (`waitingFor: "database"`, the last error, since when).
 */
/** The two log methods used (pino's shape), so this module needs no logger dependency. */
export interface WaitLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StartupState {
  /** The dependency being waited for, or null once everything is up. */
  waitingFor: string | null;
  lastError: string | null;
  attempts: number;
  /** Epoch ms the current wait began. */
  since: number | null;
  ready: boolean;
}

export function newStartupState(): StartupState {
  return { waitingFor: null, lastError: null, attempts: 0, since: null, ready: false };
}

export interface WaitOptions {
  logger: WaitLogger;
  state: StartupState;
  signal?: AbortSignal;
  minDelayMs?: number;
  maxDelayMs?: number;
}

export async function untilAvailable<T>(dependency: string, step: () => Promise<T>, opts: WaitOptions): Promise<T> {
  const min = opts.minDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 10_000;
  for (let attempt = 0; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      const value = await step();
      if (attempt > 0) opts.logger.info({ dependency, attempts: attempt + 1 }, `${dependency} is available`);
      opts.state.waitingFor = null;
      opts.state.lastError = null;
      opts.state.since = null;
      return value;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const delay = Math.min(max, min * 2 ** Math.min(attempt, 16));
      if (opts.state.waitingFor !== dependency) opts.state.since = Date.now();
      opts.state.waitingFor = dependency;
      opts.state.lastError = message;
      opts.state.attempts++;
      opts.logger.warn(
        { dependency, attempt: attempt + 1, retryInMs: delay, err: message },
        `waiting for ${dependency}: ${message}`,
      );
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, delay);
        opts.signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(t);
            reject(opts.signal!.reason);
          },
          { once: true },
        );
      });
    }
  }
}
