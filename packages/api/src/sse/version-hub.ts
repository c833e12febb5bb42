/**
 * Announces new session versions to open SSE streams. Three sources feed it, so a client never has
 * to poll the API itself:
 * - `publish()` from this process (e.g. an embedded worker, or a route that bumps a version);
 * - Redis pub/sub on `<prefix>:session-versions` in fleet mode (workers on other machines publish there);
 * - a cheap poll of the watched sessions' versions every `pollMs`, which catches any writer that
 *   publishes nothing. Only sessions with at least one open stream are polled.
 * `close()` ends every stream; shutdown calls it before draining the server.
 */
import type { Redis } from "ioredis";

export type VersionListener = (version: number) => void;
export type ReadVersions = (keys: { tenantId: string; sessionId: string }[]) => Promise<Map<string, number>>;

export interface VersionMessage {
  tenantId: string;
  sessionId: string;
  version: number;
}

export const versionChannel = (prefix: string) => `${prefix}:session-versions`;
export const hubKey = (tenantId: string, sessionId: string) => `${tenantId}\u0000${sessionId}`;

interface Watch {
  tenantId: string;
  sessionId: string;
  version: number;
  listeners: Set<VersionListener>;
}

export class VersionHub {
  private readonly watches = new Map<string, Watch>();
  private readonly closeController = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private subscriber: Redis | undefined;

  constructor(
    private readonly opts: {
      readVersions: ReadVersions;
      pollMs: number;
      redis?: { publisher: Redis; subscriber: Redis; prefix: string };
    },
  ) {}

  /** Aborted when the hub closes; every SSE loop watches it. */
  get closing(): AbortSignal {
    return this.closeController.signal;
  }

  get openStreams(): number {
    let n = 0;
    for (const w of this.watches.values()) n += w.listeners.size;
    return n;
  }

  async start(): Promise<void> {
    const r = this.opts.redis;
    if (r) {
      this.subscriber = r.subscriber;
      await r.subscriber.subscribe(versionChannel(r.prefix));
      r.subscriber.on("message", (_channel: string, raw: string) => this.onRemote(raw));
    }
  }

  subscribe(tenantId: string, sessionId: string, knownVersion: number, listener: VersionListener): () => void {
    const key = hubKey(tenantId, sessionId);
    let w = this.watches.get(key);
    if (!w) {
      w = { tenantId, sessionId, version: knownVersion, listeners: new Set() };
      this.watches.set(key, w);
    }
    w.version = Math.max(w.version, knownVersion);
    w.listeners.add(listener);
    this.ensureTimer();
    return () => {
      w.listeners.delete(listener);
      if (w.listeners.size === 0) this.watches.delete(key);
      if (this.watches.size === 0) this.stopTimer();
    };
  }

  /** Tell local streams (and, in fleet mode, every replica) that a session reached `version`. */
  async publish(msg: VersionMessage): Promise<void> {
    this.deliver(msg.tenantId, msg.sessionId, msg.version);
    const r = this.opts.redis;
    if (r) await r.publisher.publish(versionChannel(r.prefix), JSON.stringify(msg));
  }

  async close(): Promise<void> {
    this.closeController.abort();
    this.stopTimer();
    this.watches.clear();
    if (this.subscriber) {
      try {
        await this.subscriber.unsubscribe();
      } catch {
        /* already disconnected */
      }
    }
  }

  private onRemote(raw: string): void {
    try {
      const m = JSON.parse(raw) as Partial<VersionMessage>;
      if (typeof m.tenantId === "string" && typeof m.sessionId === "string" && typeof m.version === "number") {
        this.deliver(m.tenantId, m.sessionId, m.version);
      }
    } catch {
      // A malformed message from another publisher is ignored; the poll still catches the change.
    }
  }

  private deliver(tenantId: string, sessionId: string, version: number): void {
    const w = this.watches.get(hubKey(tenantId, sessionId));
    if (!w || version <= w.version) return;
    w.version = version;
    for (const l of w.listeners) l(version);
  }

  private ensureTimer(): void {
    if (this.timer || this.closeController.signal.aborted) return;
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling || this.watches.size === 0) return;
    this.polling = true;
    try {
      const keys = [...this.watches.values()].map((w) => ({ tenantId: w.tenantId, sessionId: w.sessionId }));
      const versions = await this.opts.readVersions(keys);
      for (const k of keys) {
        const v = versions.get(hubKey(k.tenantId, k.sessionId));
        if (v !== undefined) this.deliver(k.tenantId, k.sessionId, v);
      }
    } catch {
      // The database may be briefly unreachable; the next tick retries.
    } finally {
      this.polling = false;
    }
  }
}
