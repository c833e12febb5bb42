/**
 * The last applied state, kept on local disk so a resumed process renders with it before its first
 * sync (the agent never waits on that sync, and a render with no state passes the raw context through,
 * which costs one full uncondensed request and two prompt-cache writes per resume).
 *
 * One JSON file per session and service: the state as a full snapshot delta (fromVersion 0), with the
 * service identity and session id inside; a file for another identity or session, of another format,
 * or unreadable is ignored (the caller hears why) and never crashes. Writes happen off the agent's turn
 * (on a later event-loop turn, async I/O), atomically (temp file + rename), coalesced: at most one write
 * in flight, and a state applied meanwhile replaces any queued one, so only the latest is written.
 * The cached state is provisional: the first sync supersedes it (see StateMirror.seed).
 */
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { applyDelta, createState, stateSnapshot, type CondenseState, type StateDelta } from "@condense/core";
import type { StateMirror } from "./state-mirror.ts";

export const STATE_CACHE_FORMAT = "condense.state-cache/1" as const;

interface StateCacheFile {
  format: typeof STATE_CACHE_FORMAT;
  /** Which service (and tenant) the state came from; see the extension's stateCacheIdentity. */
  identity: string;
  sessionId: string;
  savedAt: number;
  snapshot: StateDelta;
}

export type StateCacheLoad =
  | { ok: true; state: CondenseState; bytes: number; ms: number }
  | { ok: false; reason: "missing" | "unreadable" | "corrupt" | "other-format" | "other-identity"; detail: string };

export interface StateCacheWrite {
  version: number;
  bytes: number;
  /** Serialization (on the event loop) and the async write + rename. */
  serializeMs: number;
  writeMs: number;
}

export class StateCache {
  private queued: CondenseState | null = null;
  private writing: Promise<void> | null = null;
  private writtenVersion = -1;
  /** The last write that completed, for status and measurement. */
  lastWrite: StateCacheWrite | null = null;
  /** Writes started so far (coalescing makes this at most one per write that was in flight). */
  writes = 0;

  constructor(
    readonly path: string,
    readonly identity: string,
    readonly sessionId: string,
    private readonly onWriteError?: (error: unknown) => void,
  ) {}

  async load(): Promise<StateCacheLoad> {
    const t0 = performance.now();
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      return this.readFailed(err);
    }
    return this.parse(text, t0);
  }

  /**
   * The same read, synchronous: for a first render that comes before the asynchronous read has
   * finished (pi's first request can follow session_start within the same few milliseconds).
   */
  loadSync(): StateCacheLoad {
    const t0 = performance.now();
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (err) {
      return this.readFailed(err);
    }
    return this.parse(text, t0);
  }

  private readFailed(err: unknown): StateCacheLoad {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "missing", detail: this.path };
    return { ok: false, reason: "unreadable", detail: err instanceof Error ? err.message : String(err) };
  }

  private parse(text: string, t0: number): StateCacheLoad {
    let file: Partial<StateCacheFile>;
    try {
      file = JSON.parse(text) as Partial<StateCacheFile>;
    } catch (err) {
      return { ok: false, reason: "corrupt", detail: err instanceof Error ? err.message : String(err) };
    }
    if (!file || typeof file !== "object" || file.format !== STATE_CACHE_FORMAT)
      return { ok: false, reason: "other-format", detail: `expected ${STATE_CACHE_FORMAT}` };
    if (file.identity !== this.identity || file.sessionId !== this.sessionId)
      return { ok: false, reason: "other-identity", detail: "cached for another service, tenant or session" };
    let state: CondenseState;
    try {
      const r = applyDelta(createState(), file.snapshot as StateDelta);
      if (!r.ok) return { ok: false, reason: "corrupt", detail: r.message };
      state = r.state;
    } catch (err) {
      return { ok: false, reason: "corrupt", detail: err instanceof Error ? err.message : String(err) };
    }
    this.writtenVersion = state.version;
    return { ok: true, state, bytes: text.length, ms: performance.now() - t0 };
  }

  /** Queue `state` to be written; returns at once. The latest state queued before a write starts wins. */
  save(state: CondenseState): void {
    if (state.version === this.writtenVersion && !this.queued && !this.writing) return;
    this.queued = state;
    this.writing ??= this.writeLoop().finally(() => {
      this.writing = null;
    });
  }

  /** Resolves once nothing is queued or being written. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Remove the file (the session is gone). */
  async remove(): Promise<void> {
    await this.idle();
    await rm(this.path, { force: true });
  }

  private async writeLoop(): Promise<void> {
    // Start on a later event-loop turn: the caller is on the agent's path (a render's apply).
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queued) {
      const state = this.queued;
      this.queued = null;
      this.writes++;
      const tmp = `${this.path}.${process.pid}.${this.writes}.tmp`;
      try {
        const t0 = performance.now();
        const file: StateCacheFile = {
          format: STATE_CACHE_FORMAT,
          identity: this.identity,
          sessionId: this.sessionId,
          savedAt: Date.now(),
          snapshot: stateSnapshot(state),
        };
        const text = JSON.stringify(file);
        const t1 = performance.now();
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(tmp, text);
        await rename(tmp, this.path);
        this.writtenVersion = state.version;
        this.lastWrite = {
          version: state.version,
          bytes: text.length,
          serializeMs: t1 - t0,
          writeMs: performance.now() - t1,
        };
      } catch (error) {
        await rm(tmp, { force: true }).catch(() => {});
        this.onWriteError?.(error);
      }
    }
  }
}

/**
 * Wire a cache to a mirror: start reading it now (nobody on the agent's path awaits the read) and seed
 * the mirror with it if no sync and no render came first; write every state the mirror applies
 * afterwards. A first render that comes while the read is still pending finishes it synchronously
 * (StateMirror.pendingSeed): measured at about 10 ms for a 1 MiB state, against a full uncondensed
 * request and two prompt-cache writes when it passes through.
 */
export function attachStateCache(
  mirror: StateMirror,
  cache: StateCache,
  onIgnored: (why: Extract<StateCacheLoad, { ok: false }>) => void,
): Promise<StateCacheLoad> {
  mirror.onApplied = (state) => cache.save(state);
  let settled: StateCacheLoad | null = null;
  const settle = (r: StateCacheLoad): StateCacheLoad => {
    if (settled) return settled;
    settled = r;
    mirror.pendingSeed = null;
    if (r.ok) mirror.seed(r.state);
    else if (r.reason !== "missing") onIgnored(r);
    return r;
  };
  mirror.pendingSeed = () => {
    settle(cache.loadSync());
  };
  return cache.load().then(settle, (err: unknown) => settle({ ok: false, reason: "unreadable", detail: String(err) }));
}
