/**
 * The worker's commit of one flush, in ONE transaction under the session lock: mint short refs from
 * the session counter, write records / summaries / dedup aliases / frontier / stats, settle the
 * captures, write the attempt's flush-metrics row, bump the session version.
 *
 * Idempotent per flush request: once a request is committed, a re-run (a stalled job delivered
 * again, a retry after a crash between commit and ack) returns the stored result and writes nothing.
 * A plan computed from state that another flush has since changed (a capture it settles is no longer
 * pending, or a record it writes already exists) is refused as `stale` so the worker recomputes it.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DedupAlias, Frontier, SummarizerStats, SummaryEntry } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { captures, dedupAliases, flushRequests, frontiers, sessions, summaries, toolCallRecords } from "../schema/index.ts";
import { lockSession } from "../session-lock.ts";
import type { CaptureSettlement } from "./captures.ts";
import { insertFlushMetricsRow, markCoalesced, type FlushMetricsWrite } from "./flush-metrics.ts";
import type { FlushRequest } from "./flush-requests.ts";
import { mintRefs, type MintedRefs } from "./ref-minting.ts";
import { addStats, hasStats } from "./stats-sum.ts";
import { chunks, excludedSet } from "./bulk-upsert.ts";
import { aliasToRow, frontierToRow, recordToRow, summaryToRow, type RecordWrite } from "./state-rows.ts";

export interface FlushWrites {
  records: RecordWrite[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  /** The new frontier; null leaves the stored one unchanged. */
  frontier: Frontier | null;
  /** Added to the session's stats (counts and usage of this flush only). */
  stats?: Partial<SummarizerStats>;
  captures: CaptureSettlement[];
  metrics: FlushMetricsWrite;
}

export interface CommitFlushInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  /** 1-based job attempt; with the request id it keys the flush-metrics row. */
  attempt: number;
  /** Occurrence keys to mint refs for, grouped per batch, in minting order (CAP-REF-1). */
  mintRefs: string[][];
  /**
   * The rows to write. A function receives the freshly minted refs (to put them into records and
   * summary texts); it runs inside the transaction and must be pure.
   */
  writes: FlushWrites | ((minted: MintedRefs) => FlushWrites);
}

export interface CommitFlushResult {
  status: "committed" | "already-committed" | "stale";
  /** The session version after the commit (the version the commit wrote, or the current one). */
  version: number;
  /** Occurrence key -> minted ref. */
  refs: Record<string, string>;
  nextRef: number;
  written: { records: number; summaries: number; aliases: number; captures: number; frontier: boolean; metricsRow: boolean };
  /** For `stale`: the keys that another flush settled or wrote meanwhile. */
  conflicts?: string[];
}

export async function commitFlush(db: Db, input: CommitFlushInput): Promise<CommitFlushResult> {
  const { tenantId, sessionId } = input;
  return db.transaction(async (tx) => {
    await lockSession(tx, tenantId, sessionId);
    const request = await loadRequest(tx, tenantId, sessionId, input.flushRequestId);
    if (request.status === "committed" && request.result) {
      return { ...(request.result as unknown as CommitFlushResult), status: "already-committed" as const };
    }
    const session = await loadSessionForUpdate(tx, tenantId, sessionId);

    const minted = mintRefs(session.nextRef, input.mintRefs);
    const w = typeof input.writes === "function" ? input.writes(minted) : input.writes;

    const conflicts = await findConflicts(tx, tenantId, sessionId, w);
    if (conflicts.length > 0) {
      return { status: "stale" as const, version: session.version, refs: {}, nextRef: session.nextRef, written: emptyWritten(), conflicts };
    }

    const changesState = w.records.length + w.summaries.length + w.aliases.length > 0 || w.frontier !== null || hasStats(w.stats);
    const version = changesState ? session.version + 1 : session.version;
    const fr = input.flushRequestId;

    for (const chunk of chunks(w.records.map((r) => recordToRow(tenantId, sessionId, version, fr, r)), 200)) {
      await tx.insert(toolCallRecords).values(chunk).onConflictDoUpdate({
        target: [toolCallRecords.tenantId, toolCallRecords.sessionId, toolCallRecords.key],
        set: excludedSet(["tool_call_id", "tool_name", "args", "result_text", "is_error", "turn_index", "batch_timestamp", "result_timestamp", "short_ref", "content_hash", "stored_bytes", "stored_preview", "stored_body", "summary_id", "backfilled", "version", "flush_request_id"]),
      });
    }
    for (const chunk of chunks(w.summaries.map((s) => summaryToRow(tenantId, sessionId, version, fr, s)), 200)) {
      await tx.insert(summaries).values(chunk).onConflictDoUpdate({
        target: [summaries.tenantId, summaries.sessionId, summaries.id],
        set: excludedSet(["text", "refs", "coverage", "tool_names", "turn_index", "timestamp", "version", "flush_request_id"]),
      });
    }
    for (const chunk of chunks(w.aliases.map((a) => aliasToRow(tenantId, sessionId, version, fr, a)), 500)) {
      await tx.insert(dedupAliases).values(chunk).onConflictDoUpdate({
        target: [dedupAliases.tenantId, dedupAliases.sessionId, dedupAliases.key],
        set: excludedSet(["original_key", "version", "flush_request_id"]),
      });
    }
    if (w.frontier) {
      const row = frontierToRow(tenantId, sessionId, version, w.frontier);
      const { tenantId: _t, sessionId: _s, ...set } = row;
      await tx.insert(frontiers).values(row).onConflictDoUpdate({ target: [frontiers.tenantId, frontiers.sessionId], set });
    }
    let settled = 0;
    for (const group of groupSettlements(w.captures)) {
      const rows = await tx
        .update(captures)
        .set({ status: group.status, statusReason: group.reason ?? null, settledBy: fr })
        .where(and(eq(captures.tenantId, tenantId), eq(captures.sessionId, sessionId), inArray(captures.occurrenceKey, group.keys)))
        .returning({ seq: captures.seq });
      settled += rows.length;
    }
    const metricsRow = await insertFlushMetricsRow(tx, request, input.attempt, w.metrics);

    const result: CommitFlushResult = {
      status: "committed",
      version,
      refs: Object.fromEntries(minted.byKey),
      nextRef: minted.nextRef,
      written: { records: w.records.length, summaries: w.summaries.length, aliases: w.aliases.length, captures: settled, frontier: w.frontier !== null, metricsRow },
    };
    await tx
      .update(sessions)
      .set({
        nextRef: minted.nextRef,
        version,
        ...(hasStats(w.stats) ? { stats: addStats(session.stats, w.stats!), statsVersion: version } : {}),
        lastFlushAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)));
    await tx
      .update(flushRequests)
      .set({ status: "committed", completedAt: sql`now()`, committedVersion: version, result: result as unknown as Record<string, unknown> })
      .where(eq(flushRequests.id, request.id));
    await markCoalesced(tx, request);
    return result;
  });
}

export async function loadRequest(tx: Tx, tenantId: string, sessionId: string, id: string): Promise<FlushRequest> {
  const [request] = await tx.select().from(flushRequests).where(and(eq(flushRequests.tenantId, tenantId), eq(flushRequests.id, id)));
  if (!request || request.sessionId !== sessionId) throw new Error(`flush request ${id} not found for session ${tenantId}/${sessionId}`);
  return request;
}

export async function loadSessionForUpdate(tx: Tx, tenantId: string, sessionId: string) {
  const [session] = await tx
    .select({ nextRef: sessions.nextRef, nextBlock: sessions.nextBlock, version: sessions.version, stats: sessions.stats })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)))
    .for("update");
  if (!session) throw new Error(`session ${tenantId}/${sessionId} not found`);
  return session;
}

/** Captures this plan settles that are no longer pending, and records it writes that already exist. */
async function findConflicts(tx: Tx, tenantId: string, sessionId: string, w: FlushWrites): Promise<string[]> {
  const out: string[] = [];
  const settleKeys = w.captures.map((c) => c.key);
  for (const chunk of chunks(settleKeys, 1000)) {
    const rows = await tx
      .select({ key: captures.occurrenceKey })
      .from(captures)
      .where(and(eq(captures.tenantId, tenantId), eq(captures.sessionId, sessionId), inArray(captures.occurrenceKey, chunk), sql`${captures.status} <> 'pending'`));
    out.push(...rows.map((r) => r.key));
  }
  const recordKeys = w.records.map((r) => r.key);
  for (const chunk of chunks(recordKeys, 1000)) {
    const rows = await tx
      .select({ key: toolCallRecords.key })
      .from(toolCallRecords)
      .where(and(eq(toolCallRecords.tenantId, tenantId), eq(toolCallRecords.sessionId, sessionId), inArray(toolCallRecords.key, chunk)));
    out.push(...rows.map((r) => r.key));
  }
  return [...new Set(out)];
}

function groupSettlements(list: CaptureSettlement[]): { status: CaptureSettlement["status"]; reason?: string; keys: string[] }[] {
  const groups = new Map<string, { status: CaptureSettlement["status"]; reason?: string; keys: string[] }>();
  for (const c of list) {
    const id = `${c.status}\u0000${c.reason ?? ""}`;
    const g = groups.get(id) ?? { status: c.status, ...(c.reason !== undefined ? { reason: c.reason } : {}), keys: [] };
    g.keys.push(c.key);
    groups.set(id, g);
  }
  return [...groups.values()].flatMap((g) => chunks(g.keys, 1000).map((keys) => ({ ...g, keys })));
}

function emptyWritten(): CommitFlushResult["written"] {
  return { records: 0, summaries: 0, aliases: 0, captures: 0, frontier: false, metricsRow: false };
}
