/**
 * Content-hash canonicals for the dedup stage (CAP-FLUSH-3), in the session's scope or, with
 * `dedupScope: "tenant"`, across every session of the tenant. A tenant-scope canonical that only
 * another session holds is returned apart (`foreign`): an alias to it would leave this session's
 * model a stub naming a summary it never received. planFlush gives such duplicates their own refs
 * and a summary written without a model call; recovery never reads across sessions.
 */
import { callKey, contentHash, type CapturedBatch, type CondenseSettings, type ForeignCanonical } from "@condense/core";
import { findCanonicalByHash, type CanonicalHint, type CanonicalRecord, type Db } from "@condense/db";

export interface Canonicals {
  byHash: Map<string, string>;
  /**
   * Tenant scope: canonicals only other sessions hold, by hash. Their duplicates here are not aliased
   * (this session has no summary of them to show); planFlush gives them their own refs and summary.
   */
  foreign: Map<string, ForeignCanonical>;
}

export async function loadCanonicals(
  db: Db,
  key: { tenantId: string; sessionId: string },
  batches: readonly CapturedBatch[],
  settings: Pick<CondenseSettings, "dedupByContentHash" | "dedupScope">,
  hints?: ReadonlyMap<string, CanonicalHint>,
): Promise<Canonicals> {
  const byHash = new Map<string, string>();
  const foreign = new Map<string, ForeignCanonical>();
  if (!settings.dedupByContentHash) return { byHash, foreign };
  const hashes = batches.flatMap((b) => b.toolCalls.map((c) => c.contentHash ?? contentHash(c.toolName, c.resultText)));
  if (hashes.length === 0) return { byHash, foreign };
  const tenantScope = settings.dedupScope === "tenant";
  // The common case: the first read already found every hash's canonical (captures are hashed at
  // ingest); nothing more to read. This session's own canonical wins over another session's.
  if (hints && hashes.every((h) => hints.has(h))) {
    const own = new Set(batches.flatMap((b) => b.toolCalls.map((c) => callKey(c))));
    for (const hash of new Set(hashes)) {
      const hint = hints.get(hash)!;
      if (hint.sessionKey !== null) byHash.set(hash, hint.sessionKey);
      else if (tenantScope && hint.tenantKey !== null) {
        if (hint.tenantSession === key.sessionId || hint.tenantPresent) byHash.set(hash, hint.tenantKey);
        else if (!own.has(hint.tenantKey) && hint.tenantSession !== null)
          foreign.set(hash, { key: hint.tenantKey, sessionId: hint.tenantSession });
      }
    }
    return { byHash, foreign };
  }
  // `presentInSession`: a foreign key already present here was copied by an earlier flush (occurrence
  // keys embed a provider id and a timestamp, so two sessions never share one for different content).
  // Read in the same statement; only tenant scope can return foreign canonicals.
  const found = await findCanonicalByHash(db, {
    tenantId: key.tenantId,
    sessionId: tenantScope ? null : key.sessionId,
    hashes,
    ...(tenantScope ? { presentIn: key.sessionId } : {}),
  });
  const own = new Set(batches.flatMap((b) => b.toolCalls.map((c) => callKey(c))));
  collect(found, key.sessionId, own, byHash, foreign);
  return { byHash, foreign };
}

/** Canonicals as read by findCanonicalByHash -> the dedup map, and the ones only other sessions hold. */
function collect(
  found: Map<string, CanonicalRecord>,
  sessionId: string,
  own: ReadonlySet<string>,
  byHash: Map<string, string>,
  foreign: Map<string, ForeignCanonical>,
): void {
  for (const [hash, c] of found) {
    if (c.sessionId !== sessionId && c.presentInSession !== true) {
      // the same key pending in this very flush is this session's own occurrence, not a canonical
      if (!own.has(c.record.key)) foreign.set(hash, { key: c.record.key, sessionId: c.sessionId });
      continue;
    }
    byHash.set(hash, c.record.key);
  }
}
