/**
 * The service's in-memory registry of handed-off summarizer models, per (tenant, session). It holds
 * credentials, so it is never written to disk or to the database, never logged (redactHandOff), and
 * empty after a restart: the agent hands its model off again (on a 409 `summarizer_not_handed_off`
 * from a flush, or when it reconnects). One instance is shared by the API app (which fills it) and
 * the worker runtime (which reads it); the composition root creates it and passes it to both.
 */
import type { SummarizerHandOff } from "./handed-off-model.ts";

export interface HandOffEntry {
  readonly handOff: SummarizerHandOff;
  readonly receivedAt: number;
}

export interface SummarizerHandOffStore {
  put(tenantId: string, sessionId: string, handOff: SummarizerHandOff): HandOffEntry;
  get(tenantId: string, sessionId: string): HandOffEntry | undefined;
  delete(tenantId: string, sessionId: string): boolean;
  readonly size: number;
}

export interface HandOffRegistryOptions {
  /** Sessions kept; the least recently handed off is dropped first (its agent hands off again on a 409). */
  maxSessions?: number;
  now?: () => number;
}

export function createHandOffRegistry(options: HandOffRegistryOptions = {}): SummarizerHandOffStore {
  const max = options.maxSessions ?? 10_000;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order; re-inserting on put makes the first key the oldest.
  const entries = new Map<string, HandOffEntry>();
  const keyOf = (tenantId: string, sessionId: string) => `${tenantId}\u0000${sessionId}`;
  return {
    put(tenantId, sessionId, handOff) {
      const key = keyOf(tenantId, sessionId);
      // A fresh entry on every hand-off: the session's outage state (CAP-SUM-9) starts over with it.
      const entry: HandOffEntry = Object.freeze({ handOff, receivedAt: now() });
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > max) entries.delete(entries.keys().next().value!);
      return entry;
    },
    get: (tenantId, sessionId) => entries.get(keyOf(tenantId, sessionId)),
    delete: (tenantId, sessionId) => entries.delete(keyOf(tenantId, sessionId)),
    get size() {
      return entries.size;
    },
  };
}
