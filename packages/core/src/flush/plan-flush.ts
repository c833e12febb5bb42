/**
 * Pre-flush stages of CAP-FLUSH as a pure function: content-hash dedup (against canonicals from
 * earlier flushes AND, unlike pi-condense, against earlier batches of the same flush), oversized
 * results stored out of line (CAP-SPILL, done by the worker instead of the agent), and the trivial
 * skip (CAP-FLUSH-4). The worker calls the summarizer only for batches planned as `summarize`.
 * Tenant scope: a call whose content only another session holds is not aliased to a record this
 * session cannot show; it goes into a borrowed plan that gets its own refs and a model-free summary.
 */
import { callKey } from "../capture.ts";
import type { CapturedBatch, CapturedToolCall } from "../capture-types.ts";
import { contentHash, storedPreview, utf8ByteLength } from "../content-hash.ts";
import type { CondenseSettings } from "../settings.ts";
import type { DedupAlias } from "../state-types.ts";

export interface StoredCall {
  call: CapturedToolCall;
  key: string;
  hash: string;
  bytes: number;
  preview: string;
}
export interface AliasedCall {
  call: CapturedToolCall;
  alias: DedupAlias;
  hash: string;
  withinFlush: boolean;
}

export type BatchPlanKind = "summarize" | "trivial" | "deduped" | "stored-only";

/** A canonical of the same content in another session of the tenant (tenant-scope dedup). */
export interface ForeignCanonical {
  key: string;
  sessionId: string;
}

export interface BatchPlan {
  /** Position of the batch in the input; a borrowed plan's is BORROWED_INDEX_BASE + that position. */
  index: number;
  batch: CapturedBatch;
  kind: BatchPlanKind;
  /** Calls left for the summarizer (post-dedup, post-store), in order. */
  calls: CapturedToolCall[];
  /** Σ resultText length of `calls`: the oversized and trivial checks compare against it. */
  rawChars: number;
  aliased: AliasedCall[];
  stored: StoredCall[];
  /** Content hash per remaining call key. */
  hashes: Map<string, string>;
  /**
   * Set on a borrowed plan: its calls duplicate records of other sessions (aligned with `calls`).
   * It is summarized without a model (borrowed-summary.ts): its calls get their own tN and a
   * summary in this session, so the model can read it and recovery works from either session.
   */
  borrowed?: ForeignCanonical[];
}

/** Index offset of borrowed plans, so their results never collide with a batch's own. */
export const BORROWED_INDEX_BASE = 1_000_000;

export interface FlushPlan {
  batches: BatchPlan[];
  /** Total refs the summarize batches need, in batch order (CAP-REF-1). */
  refsNeeded: number;
  dedupHits: number;
}

export interface PlanFlushInput {
  batches: readonly CapturedBatch[];
  settings: Pick<CondenseSettings, "dedupByContentHash" | "minBatchChars" | "spillThreshold" | "spillPreviewBytes">;
  /** Canonical occurrence key per content hash from earlier flushes (session or tenant scope). */
  canonicalByHash: ReadonlyMap<string, string>;
  /** Tenant scope: canonicals that live only in other sessions, by content hash. */
  foreignByHash?: ReadonlyMap<string, ForeignCanonical>;
}

export function planFlush(input: PlanFlushInput): FlushPlan {
  const { settings } = input;
  const dedup = settings.dedupByContentHash;
  // Canonicals made by earlier summarize batches or stored calls of this same flush.
  const flushCanonicals = new Map<string, string>();
  const out: BatchPlan[] = [];
  let refsNeeded = 0;
  let dedupHits = 0;
  input.batches.forEach((batch, index) => {
    const calls: CapturedToolCall[] = [];
    const aliased: AliasedCall[] = [];
    const stored: StoredCall[] = [];
    const hashes = new Map<string, string>();
    const borrowed: { call: CapturedToolCall; foreign: ForeignCanonical; hash: string }[] = [];
    for (const call of batch.toolCalls) {
      const key = callKey(call);
      const hash = call.contentHash ?? contentHash(call.toolName, call.resultText);
      if (dedup) {
        const earlier = input.canonicalByHash.get(hash);
        const inFlush = earlier === undefined ? flushCanonicals.get(hash) : undefined;
        const original = earlier ?? inFlush;
        if (original !== undefined && original !== key) {
          aliased.push({ call, hash, alias: { key, originalKey: original }, withinFlush: earlier === undefined });
          dedupHits++;
          continue;
        }
        const foreign = original === undefined ? input.foreignByHash?.get(hash) : undefined;
        if (foreign !== undefined && foreign.key !== key) {
          borrowed.push({ call, foreign, hash });
          dedupHits++;
          continue;
        }
      }
      if (call.resultText.length >= settings.spillThreshold) {
        stored.push({
          call,
          key,
          hash,
          bytes: utf8ByteLength(call.resultText),
          preview: storedPreview(call.resultText, settings.spillPreviewBytes),
        });
        if (dedup && !flushCanonicals.has(hash)) flushCanonicals.set(hash, key);
        continue;
      }
      calls.push(call);
      hashes.set(key, hash);
    }
    const rawChars = calls.reduce((n, c) => n + c.resultText.length, 0);
    let kind: BatchPlanKind;
    if (calls.length === 0) kind = aliased.length > 0 && stored.length === 0 ? "deduped" : "stored-only";
    else if (settings.minBatchChars > 0 && rawChars < settings.minBatchChars) kind = "trivial";
    else kind = "summarize";
    if (kind === "summarize") {
      refsNeeded += calls.length;
      // Only calls that will be indexed can be canonicals for later batches of this flush.
      if (dedup)
        for (const c of calls) {
          const h = hashes.get(callKey(c))!;
          if (!flushCanonicals.has(h)) flushCanonicals.set(h, callKey(c));
        }
    }
    out.push({ index, batch, kind, calls, rawChars, aliased, stored, hashes });
    if (borrowed.length > 0) {
      const b = borrowedPlan(index, batch, borrowed, settings.minBatchChars);
      if (b.kind === "summarize") {
        refsNeeded += b.calls.length;
        if (dedup)
          for (const x of borrowed) if (!flushCanonicals.has(x.hash)) flushCanonicals.set(x.hash, callKey(x.call));
      }
      out.push(b);
    }
  });
  return { batches: out, refsNeeded, dedupHits };
}

/** The plan of a batch's calls whose content another session already condensed (see BatchPlan.borrowed). */
function borrowedPlan(
  index: number,
  batch: CapturedBatch,
  borrowed: { call: CapturedToolCall; foreign: ForeignCanonical; hash: string }[],
  minBatchChars: number,
): BatchPlan {
  const calls = borrowed.map((x) => x.call);
  const rawChars = calls.reduce((n, c) => n + c.resultText.length, 0);
  return {
    index: BORROWED_INDEX_BASE + index,
    batch: { ...batch, assistantText: "", toolCalls: calls },
    kind: minBatchChars > 0 && rawChars < minBatchChars ? "trivial" : "summarize",
    calls,
    rawChars,
    aliased: [],
    stored: [],
    hashes: new Map(borrowed.map((x) => [callKey(x.call), x.hash])),
    borrowed: borrowed.map((x) => x.foreign),
  };
}
