/**
 * Content-hash canonicals for the dedup stage (CAP-FLUSH-3), in the session's scope or, with
 * `dedupScope: "tenant"`, across every session of the tenant. A tenant-scope canonical from another
 * session is copied into this session (same key and content, no ref, no summary) so the alias
 * resolves inside the session: recovery never reads across sessions, and the agent still gets the
 * original output back through context_tree_query.
 */
import { callKey, contentHash, type CapturedBatch, type CondenseSettings } from "@condense/core";
import { findCanonicalByHash, type CanonicalHint, type CanonicalRecord, type Db, type RecordWrite } from "@condense/db";

export interface Canonicals {
  byHash: Map<string, string>;
  /** Records to copy into this session if an alias to them is committed, by key. */
  copies: Map<string, RecordWrite>;
}

export async function loadCanonicals(
  db: Db,
  key: { tenantId: string; sessionId: string },
  batches: readonly CapturedBatch[],
  settings: Pick<CondenseSettings, "dedupByContentHash" | "dedupScope">,
  hints?: ReadonlyMap<string, CanonicalHint>,
): Promise<Canonicals> {
  const byHash = new Map<string, string>();
  const copies = new Map<string, RecordWrite>();
  if (!settings.dedupByContentHash) return { byHash, copies };
  const hashes = batches.flatMap((b) => b.toolCalls.map((c) => c.contentHash ?? contentHash(c.toolName, c.resultText)));
  if (hashes.length === 0) return { byHash, copies };
  const tenantScope = settings.dedupScope === "tenant";
  // The common case: the first read already found every hash's canonical (captures are hashed at
  // ingest). Only a tenant-scope canonical that must be copied here needs its full record.
  if (hints && hashes.every((h) => hints.has(h))) {
    const own = new Set(batches.flatMap((b) => b.toolCalls.map((c) => callKey(c))));
    const toCopy: string[] = [];
    for (const hash of new Set(hashes)) {
      const hint = hints.get(hash)!;
      if (!tenantScope) {
        if (hint.sessionKey !== null) byHash.set(hash, hint.sessionKey);
      } else if (hint.tenantKey !== null) {
        if (hint.tenantSession === key.sessionId || hint.tenantPresent) byHash.set(hash, hint.tenantKey);
        else if (!own.has(hint.tenantKey)) toCopy.push(hash);
      }
    }
    if (toCopy.length === 0) return { byHash, copies };
    const found = await findCanonicalByHash(db, { tenantId: key.tenantId, sessionId: null, hashes: toCopy, presentIn: key.sessionId });
    collect(found, key.sessionId, own, byHash, copies);
    return { byHash, copies };
  }
  // `presentInSession`: a foreign key already present here was copied by an earlier flush (occurrence
  // keys embed a provider id and a timestamp, so two sessions never share one for different content).
  // Read in the same statement; only tenant scope can return foreign canonicals.
  const found = await findCanonicalByHash(db, {
    tenantId: key.tenantId, sessionId: tenantScope ? null : key.sessionId, hashes, ...(tenantScope ? { presentIn: key.sessionId } : {}),
  });
  const own = new Set(batches.flatMap((b) => b.toolCalls.map((c) => callKey(c))));
  collect(found, key.sessionId, own, byHash, copies);
  return { byHash, copies };
}

/** Canonicals as read by findCanonicalByHash -> the dedup map, and the foreign records to copy here. */
function collect(found: Map<string, CanonicalRecord>, sessionId: string, own: ReadonlySet<string>, byHash: Map<string, string>, copies: Map<string, RecordWrite>): void {
  for (const [hash, c] of found) {
    if (c.sessionId !== sessionId && c.presentInSession !== true) {
      // The copy would collide with a pending capture of this very flush: not a usable canonical.
      if (own.has(c.record.key)) continue;
      const { shortRef: _ref, summaryId: _summary, backfilled: _b, ...rest } = c.record;
      copies.set(c.record.key, { ...rest, ...(c.storedBody !== null ? { storedBody: c.storedBody } : {}) });
    }
    byHash.set(hash, c.record.key);
  }
}
