/**
 * Keeps the mirror fresh without the agent asking: a Server-Sent Events stream announces each new
 * session version and wakes a pull; when the stream cannot be held (a proxy that buffers, an API
 * without SSE, the service down) the watcher polls instead, backing off while pulls fail. Everything
 * here runs in the background; the agent's turn never waits on it.
 */
import { backoffDelay, sleep, type BackoffPolicy } from "./backoff.ts";
import { readSse } from "./sse-reader.ts";
import type { StateMirror } from "./state-mirror.ts";
import type { Transport } from "./transport.ts";

export interface VersionWatchOptions {
  transport: Transport;
  sessionPath: string;
  mirror: StateMirror;
  /** Poll interval while SSE is unavailable. */
  pollMs: number;
  /** Backoff of failing pulls and of SSE reconnects. */
  backoff: BackoffPolicy;
  /** Disable SSE entirely (always poll). */
  sse: boolean;
  onError?(error: unknown): void;
}

export class VersionWatch {
  private readonly stop = new AbortController();
  private loop: Promise<void> | null = null;
  mode: "sse" | "poll" | "stopped" = "stopped";

  constructor(private readonly o: VersionWatchOptions) {}

  start(): void {
    if (this.loop) return;
    this.loop = this.run().catch((err) => this.o.onError?.(err));
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.mode = "stopped";
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stop.signal;
    let failures = 0;
    while (!signal.aborted) {
      if (this.o.sse) {
        const held = await this.followSse(signal);
        if (signal.aborted) return;
        // The stream ended or could not open: one poll round (also catches up), then try SSE again.
        if (held) failures = 0;
      }
      this.mode = "poll";
      try {
        await this.o.mirror.pull(signal);
        failures = 0;
        await sleep(this.o.pollMs, signal);
      } catch (err) {
        if (signal.aborted) return;
        this.o.onError?.(err);
        await sleep(Math.max(this.o.pollMs, backoffDelay(this.o.backoff, failures++)), signal);
      }
    }
  }

  /** Follows the stream until it ends. True when it delivered at least one event. */
  private async followSse(signal: AbortSignal): Promise<boolean> {
    let res: Response;
    try {
      res = await this.o.transport.stream(`${this.o.sessionPath}/events?since=${this.o.mirror.knownVersion}`, signal);
    } catch {
      return false;
    }
    this.mode = "sse";
    let delivered = false;
    try {
      for await (const ev of readSse(res.body!, signal)) {
        if (signal.aborted) break;
        if (ev.event !== "version") continue;
        delivered = true;
        const v = Number(ev.id ?? JSON.parse(ev.data).version);
        if (Number.isFinite(v) && v <= this.o.mirror.knownVersion) continue;
        try {
          await this.o.mirror.pull(signal);
        } catch (err) {
          this.o.onError?.(err);
        }
      }
    } catch {
      // A dropped stream is routine (restart, idle proxy); the caller falls back to a poll round.
    } finally {
      await res.body?.cancel().catch(() => {});
    }
    return delivered;
  }
}
