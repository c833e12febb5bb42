/** Mapping between state-table rows and the core state types the API serves and the worker writes. */
import type { ChainEntry, DedupAlias, Frontier, SummaryEntry, ToolCallRecord } from "@condense/core";
import { parseOccKey } from "@condense/core";
import { num, numOrNull } from "../raw-query.ts";
import type { chains, dedupAliases, frontiers, summaries, toolCallRecords } from "../schema/index.ts";

type RecordRow = typeof toolCallRecords.$inferSelect;
type SummaryRow = typeof summaries.$inferSelect;
type AliasRow = typeof dedupAliases.$inferSelect;
type FrontierRow = typeof frontiers.$inferSelect;
type ChainRow = typeof chains.$inferSelect;

/** A record as the worker writes it: an oversized result carries its full body in `storedBody`. */
export interface RecordWrite extends ToolCallRecord {
  storedBody?: string;
}

/** The columns recordFromRow reads. */
type RecordFields = Pick<RecordRow, "key" | "toolCallId" | "toolName" | "args" | "resultText" | "isError" | "turnIndex" | "batchTimestamp"
  | "resultTimestamp" | "shortRef" | "contentHash" | "storedBytes" | "storedPreview" | "summaryId" | "backfilled">;

/** Row -> ToolCallRecord. Stored bodies stay out of the record (deltas carry bytes and preview only). */
export function recordFromRow(r: RecordFields): ToolCallRecord {
  const rec: ToolCallRecord = {
    key: r.key,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    args: r.args,
    resultText: r.resultText,
    isError: r.isError,
    turnIndex: r.turnIndex,
    timestamp: r.batchTimestamp,
  };
  if (r.resultTimestamp !== null) rec.resultTimestamp = r.resultTimestamp;
  if (r.shortRef !== null) rec.shortRef = r.shortRef;
  if (r.contentHash !== null) rec.contentHash = r.contentHash;
  if (r.storedBytes !== null) rec.stored = { bytes: r.storedBytes, preview: r.storedPreview ?? "" };
  if (r.summaryId !== null) rec.summaryId = r.summaryId;
  if (r.backfilled) rec.backfilled = true;
  return rec;
}

/** The same from a raw (snake_case) row; int8 columns may arrive as strings (raw-query.ts). */
export function recordFromRawRow(r: Record<string, unknown>): ToolCallRecord {
  return recordFromRow({
    key: r.key as string,
    toolCallId: r.tool_call_id as string,
    toolName: r.tool_name as string,
    args: r.args as Record<string, unknown>,
    resultText: r.result_text as string,
    isError: r.is_error as boolean,
    turnIndex: r.turn_index as number,
    batchTimestamp: num(r.batch_timestamp),
    resultTimestamp: numOrNull(r.result_timestamp),
    shortRef: (r.short_ref as string | null) ?? null,
    contentHash: (r.content_hash as string | null) ?? null,
    storedBytes: (r.stored_bytes as number | null) ?? null,
    storedPreview: (r.stored_preview as string | null) ?? null,
    summaryId: (r.summary_id as string | null) ?? null,
    backfilled: r.backfilled === true,
  });
}

export function recordToRow(tenantId: string, sessionId: string, version: number, flushRequestId: string | null, r: RecordWrite) {
  return {
    tenantId,
    sessionId,
    key: r.key,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    args: r.args,
    resultText: r.stored ? "" : r.resultText,
    isError: r.isError,
    turnIndex: r.turnIndex,
    batchTimestamp: r.timestamp,
    resultTimestamp: r.resultTimestamp ?? null,
    shortRef: r.shortRef ?? null,
    contentHash: r.contentHash ?? null,
    storedBytes: r.stored?.bytes ?? null,
    storedPreview: r.stored?.preview ?? null,
    storedBody: r.stored ? (r.storedBody ?? (r.resultText || null)) : null,
    summaryId: r.summaryId ?? null,
    backfilled: r.backfilled ?? false,
    version,
    flushRequestId,
  };
}

export function summaryFromRow(s: SummaryRow): SummaryEntry {
  return { id: s.id, text: s.text, refs: s.refs, coverage: s.coverage, toolNames: s.toolNames, turnIndex: s.turnIndex, timestamp: s.timestamp };
}

export function summaryToRow(tenantId: string, sessionId: string, version: number, flushRequestId: string | null, s: SummaryEntry) {
  return { tenantId, sessionId, id: s.id, text: s.text, refs: s.refs, coverage: s.coverage, toolNames: s.toolNames, turnIndex: s.turnIndex, timestamp: s.timestamp, version, flushRequestId };
}

export function aliasFromRow(a: AliasRow): DedupAlias {
  return { key: a.key, originalKey: a.originalKey };
}

export function aliasToRow(tenantId: string, sessionId: string, version: number, flushRequestId: string | null, a: DedupAlias) {
  return { tenantId, sessionId, key: a.key, toolCallId: parseOccKey(a.key).id, originalKey: a.originalKey, version, flushRequestId };
}

export function frontierFromRow(f: FrontierRow): Frontier {
  return {
    lastAttemptedToolCallId: f.lastAttemptedToolCallId,
    lastAttemptedToolName: f.lastAttemptedToolName,
    lastAttemptedTurnIndex: f.lastAttemptedTurnIndex,
    lastAttemptedTimestamp: f.lastAttemptedTimestamp,
    attemptedBatchCount: f.attemptedBatchCount,
    attemptedToolCallCount: f.attemptedToolCallCount,
    rawCharCount: f.rawCharCount,
    summaryCharCount: f.summaryCharCount,
    outcome: f.outcome,
  };
}

export function frontierToRow(tenantId: string, sessionId: string, version: number, f: Frontier) {
  return { tenantId, sessionId, ...f, version };
}

export function chainFromRow(c: ChainRow): ChainEntry {
  const e: ChainEntry = {
    blockId: c.blockId,
    startUserTimestamp: c.startUserTimestamp,
    finalAssistantTimestamp: c.finalAssistantTimestamp,
    droppedToolCallIds: c.droppedToolCallIds,
    toolRefs: c.toolRefs,
    compressedAt: c.compressedAt,
  };
  if (c.droppedOccurrenceKeys !== null) e.droppedOccurrenceKeys = c.droppedOccurrenceKeys;
  if (c.protectedToolCallIds !== null) e.protectedToolCallIds = c.protectedToolCallIds;
  if (c.rangeSummaryText !== null) e.rangeSummaryText = c.rangeSummaryText;
  if (c.bodySource !== null) e.bodySource = c.bodySource;
  return e;
}

export function chainToRow(tenantId: string, sessionId: string, version: number, flushRequestId: string | null, c: ChainEntry) {
  return {
    tenantId,
    sessionId,
    blockId: c.blockId,
    startUserTimestamp: c.startUserTimestamp,
    finalAssistantTimestamp: c.finalAssistantTimestamp,
    droppedToolCallIds: c.droppedToolCallIds,
    droppedOccurrenceKeys: c.droppedOccurrenceKeys ?? null,
    protectedToolCallIds: c.protectedToolCallIds && c.protectedToolCallIds.length > 0 ? c.protectedToolCallIds : null,
    toolRefs: c.toolRefs,
    compressedAt: c.compressedAt,
    rangeSummaryText: c.rangeSummaryText ?? null,
    bodySource: c.bodySource ?? null,
    version,
    flushRequestId,
  };
}
