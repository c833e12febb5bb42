/**
 * How bench:worker sees a flush's new session version: LISTEN/NOTIFY on a Postgres scratch database,
 * or, for the embedded default on PGlite, the worker's own trace of the run.
 */
import postgres from "postgres";
import type { FlushTrace } from "../src/index.ts";
import { hr } from "./bench-stats.ts";

/** Resolves when a session's version passes `above`, with the time (epoch ms, high resolution) it became visible. */
export interface VersionWatch {
  until(sessionId: string, above: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Sees each session's version move the moment it commits: a bench-only trigger on the scratch
 * database's sessions table NOTIFYs (session, version) on every version change, delivered at commit;
 * the watcher LISTENs on its own connection. (It replaced a 1-2 ms polling loop, whose ~1000
 * queries/s competed with the flushes it measured.) The trigger's cost stays inside the commit.
 */
export async function versionWatcher(url: string): Promise<VersionWatch> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  await client.unsafe(`
    create or replace function bench_notify_version() returns trigger language plpgsql as $$
    begin perform pg_notify('bench_version', new.session_id || ' ' || new.version); return new; end $$;
    drop trigger if exists bench_notify_version on sessions;
    create trigger bench_notify_version after update of version on sessions for each row
      when (new.version is distinct from old.version) execute function bench_notify_version();`);
  const waiting = new Map<string, { above: number; resolve: (at: number) => void }[]>();
  const listener = await client.listen("bench_version", (payload) => {
    const at = hr();
    const sp = payload.lastIndexOf(" ");
    const id = payload.slice(0, sp);
    const v = Number(payload.slice(sp + 1));
    const list = waiting.get(id);
    if (!list) return;
    const keep = list.filter((w) => {
      if (v > w.above) {
        w.resolve(at);
        return false;
      }
      return true;
    });
    if (keep.length) waiting.set(id, keep);
    else waiting.delete(id);
  });
  return {
    until(sessionId: string, above: number) {
      return new Promise<number>((resolve) =>
        waiting.set(sessionId, [...(waiting.get(sessionId) ?? []), { above, resolve }]),
      );
    },
    async close() {
      await listener.unlisten();
      await client.end({ timeout: 5 });
    },
  };
}

/** Time from the run's start to the end of its commit stage. */
export function commitEnd(t: FlushTrace): number {
  const tm = t.timings!;
  let acc = tm.startedAt;
  for (const [stage, ms] of Object.entries(tm.stages)) {
    acc += ms;
    if (stage === "commit") return acc;
  }
  return acc;
}

/**
 * The embedded default has no second connection to LISTEN on (PGlite is one in-process connection), so
 * a flush's version counts as visible at the end of its commit stage, from the worker's trace: in one
 * process the next read sees it. The detection column is then 0 by construction.
 */
export function traceWatcher(): VersionWatch & { onTrace(t: FlushTrace): void } {
  const waiting = new Map<string, (at: number) => void>();
  return {
    onTrace(t) {
      const resolve = waiting.get(t.sessionId);
      if (!resolve || !t.timings) return;
      waiting.delete(t.sessionId);
      resolve(commitEnd(t));
    },
    until(sessionId) {
      return new Promise<number>((resolve) => waiting.set(sessionId, resolve));
    },
    async close() {
      waiting.clear();
    },
  };
}
