/**
 * The tool_call_records table: row <-> core ToolCallRecord, the content-hash canonicals of pre-flush
 * dedup (CAP-FLUSH-3, raw statements in tool-call-records.sql.ts), and the recovery lookup
 * (`context_tree_query`, CAP-QUERY) over records and their dedup aliases. Records are written by the
 * flush commit (flush-commit.ts), the chain commit (backfilled records) and out-of-line captures.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { ToolCallRecord } from "@condense/core";
import { buildState, emptyStats, recordsForId } from "@condense/core";
import type { Db } from "../client.ts";
import { chunks } from "../chunks.ts";
import { dedupAliases, toolCallRecords } from "../schema/index.ts";
import { num, numOrNull, runStatement } from "../statement.ts";
import { aliasFromRow } from "./dedup-aliases.ts";
import type { SessionKey } from "./sessions.ts";
import { SESSION_CANONICALS, TENANT_CANONICALS } from "./tool-call-records.sql.ts";

type RecordRow = typeof toolCallRecords.$inferSelect;

/** A record as the worker writes it: an oversized result carries its full body in `storedBody`. */
export interface RecordWrite extends ToolCallRecord {
  storedBody?: string;
}

/** The columns recordFromRow reads. */
type RecordFields = Pick<
  RecordRow,
  | "key"
  | "toolCallId"
  | "toolName"
  | "args"
  | "resultText"
  | "isError"
  | "turnIndex"
  | "batchTimestamp"
  | "resultTimestamp"
  | "shortRef"
  | "contentHash"
  | "storedBytes"
  | "storedPreview"
  | "summaryId"
  | "backfilled"
>;

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

/** The same from a raw (snake_case) row; int8 columns may arrive as strings (statement.ts). */
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

export function recordToRow(
  tenantId: string,
  sessionId: string,
  version: number,
  flushRequestId: string | null,
  r: RecordWrite,
) {
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

/**
 * Content-hash canonicals: for each hash, the first record ever indexed with it (backfilled records
 * never seed canonicals). Scope "session" looks in one session, scope "tenant" (sessionId null)
 * across all sessions of the tenant, never beyond it.
 */
export interface CanonicalRecord {
  sessionId: string;
  record: ToolCallRecord;
  /** Full body for stored (oversized) records, so a tenant-scope hit can be copied into another session. */
  storedBody: string | null;
  /**
   * With `presentIn`: whether the canonical's key already has a record or an alias in that session
   * (a tenant-scope canonical copied there by an earlier flush), read in the same statement.
   */
  presentInSession?: boolean;
}

export async function findCanonicalByHash(
  db: Db,
  input: { tenantId: string; sessionId: string | null; hashes: string[]; presentIn?: string },
): Promise<Map<string, CanonicalRecord>> {
  const out = new Map<string, CanonicalRecord>();
  const presentIn = input.presentIn;
  for (const chunk of chunks([...new Set(input.hashes)], 500)) {
    const rows =
      input.sessionId === null
        ? await runStatement(db, TENANT_CANONICALS, {
            tenantId: input.tenantId,
            hashes: chunk,
            presentIn: presentIn ?? null,
          })
        : await runStatement(db, SESSION_CANONICALS, {
            tenantId: input.tenantId,
            sessionId: input.sessionId,
            hashes: chunk,
            presentIn: presentIn ?? null,
          });
    for (const r of rows) {
      out.set(r.content_hash as string, {
        sessionId: r.session_id as string,
        record: recordFromRawRow(r),
        storedBody: (r.stored_body as string | null) ?? null,
        ...(presentIn !== undefined ? { presentInSession: r.present_in_session === true } : {}),
      });
    }
  }
  return out;
}

/**
 * Recovery: resolve what the agent asked for to full records. Resolution reuses core's
 * `recordsForId` over just the rows that can match, so the service answers exactly as the
 * in-process state would (refs, aliases, reused ids, legacy keys). Hits are logged in recoveries.ts.
 */
export interface RecoveredHit {
  label: string;
  legacy: boolean;
  ref: string | null;
  /** The record with its full body (stored bodies restored into `resultText`). */
  record: ToolCallRecord;
  /**
   * Set when the body is kept in parts (capture_bodies, uploaded out of line): where to read its
   * pages (readBodyWindow) and its length; `record.resultText` stays "" then.
   */
  parts?: { occurrenceKey: string; chars: number };
}

export interface RecoveryAnswer {
  input: string;
  hits: RecoveredHit[];
}

export async function lookupRecordsForQuery(
  db: Db,
  input: SessionKey & { inputs: string[] },
): Promise<RecoveryAnswer[]> {
  const { tenantId, sessionId } = input;
  const asked = [...new Set(input.inputs)].slice(0, 1000);
  if (asked.length === 0) return [];
  const scope = (t: typeof toolCallRecords | typeof dedupAliases) =>
    and(eq(t.tenantId, tenantId), eq(t.sessionId, sessionId));
  const aliasRows = await db
    .select()
    .from(dedupAliases)
    .where(and(scope(dedupAliases), or(inArray(dedupAliases.key, asked), inArray(dedupAliases.toolCallId, asked))));
  const originals = aliasRows.map((a) => a.originalKey);
  const recordRows = await db
    .select()
    .from(toolCallRecords)
    .where(
      and(
        scope(toolCallRecords),
        or(
          inArray(toolCallRecords.key, [...asked, ...originals]),
          inArray(toolCallRecords.shortRef, asked),
          inArray(toolCallRecords.toolCallId, asked),
        ),
      ),
    )
    .orderBy(toolCallRecords.seq);
  const bodies = new Map(recordRows.filter((r) => r.storedBody !== null).map((r) => [r.key, r.storedBody!]));
  const inParts = new Map(
    recordRows
      .filter((r) => r.storedParts !== null)
      .map((r) => [r.key, { occurrenceKey: r.key, chars: r.storedChars ?? 0 }]),
  );
  const state = buildState(0, recordRows.map(recordFromRow), [], aliasRows.map(aliasFromRow), [], null, emptyStats());
  return asked.map((q) => ({
    input: q,
    hits: recordsForId(state, q).map((h) => {
      // Aliases present the original's content under their own key; the body lives under the original.
      const origin = state.aliases.get(h.record.key) ?? h.record.key;
      const body = bodies.get(origin);
      const parts = inParts.get(origin);
      return {
        label: h.label,
        legacy: h.legacy,
        ref: state.keyToRef.get(h.record.key) ?? h.record.shortRef ?? null,
        record: body !== undefined ? { ...h.record, resultText: body } : h.record,
        ...(parts ? { parts } : {}),
      };
    }),
  }));
}

/** A session's records and the raw characters they condensed (inline text plus stored bodies). */
export async function recordCounts(db: Db, key: SessionKey): Promise<{ records: number; rawChars: number }> {
  const [row] = await db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      raw: sql<number>`coalesce(sum(length(${toolCallRecords.resultText}) + coalesce(${toolCallRecords.storedBytes}, 0)), 0)`.mapWith(
        Number,
      ),
    })
    .from(toolCallRecords)
    .where(and(eq(toolCallRecords.tenantId, key.tenantId), eq(toolCallRecords.sessionId, key.sessionId)));
  return { records: row?.n ?? 0, rawChars: row?.raw ?? 0 };
}
