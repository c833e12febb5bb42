/**
 * Content-hash canonicals for the dedup stage (CAP-FLUSH-3), in the session's scope or, with
 * `dedupScope: "tenant"`, across every session of the tenant. A tenant-scope canonical from another
 * session is copied into this session (same key and content, no ref, no summary) so the alias
 * resolves inside the session: recovery never reads across sessions, and the agent still gets the
 * original output back through context_tree_query.
 */
import { callKey, contentHash, type CapturedBatch, type CondenseSettings } from "@condense/core";
import { findCanonicalByHash, type Db, type RecordWrite } from "@condense/db";

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
): Promise<Canonicals> {
  const byHash = new Map<string, string>();
  const copies = new Map<string, RecordWrite>();
  if (!settings.dedupByContentHash) return { byHash, copies };
  const hashes = batches.flatMap((b) => b.toolCalls.map((c) => c.contentHash ?? contentHash(c.toolName, c.resultText)));
  if (hashes.length === 0) return { byHash, copies };
  const tenantScope = settings.dedupScope === "tenant";
  // `presentInSession`: a foreign key already present here was copied by an earlier flush (occurrence
  // keys embed a provider id and a timestamp, so two sessions never share one for different content).
  // Read in the same statement; only tenant scope can return foreign canonicals.
  const found = await findCanonicalByHash(db, {
    tenantId: key.tenantId, sessionId: tenantScope ? null : key.sessionId, hashes, ...(tenantScope ? { presentIn: key.sessionId } : {}),
  });
  const own = new Set(batches.flatMap((b) => b.toolCalls.map((c) => callKey(c))));
  for (const [hash, c] of found) {
    if (c.sessionId !== key.sessionId && c.presentInSession !== true) {
      // The copy would collide with a pending capture of this very flush: not a usable canonical.
      if (own.has(c.record.key)) continue;
      const { shortRef: _ref, summaryId: _summary, backfilled: _b, ...rest } = c.record;
      copies.set(c.record.key, { ...rest, ...(c.storedBody !== null ? { storedBody: c.storedBody } : {}) });
    }
    byHash.set(hash, c.record.key);
  }
  return { byHash, copies };
}
