/**
 * The condensation state of a session, row by row: what `StateDelta` (packages/core) is built from.
 * Every row carries the session `version` that last wrote it, so a delta is "version > since".
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { ChainBodySource, FlushOutcome, SummaryRef } from "@condense/core";
import { sessions } from "./sessions.ts";

// biome-ignore lint/suspicious/noExplicitAny: drizzle's column builders differ per table; foreignKey() accepts each
const sessionFk = (name: string, t: { tenantId: any; sessionId: any }) =>
  foreignKey({
    columns: [t.tenantId, t.sessionId],
    foreignColumns: [sessions.tenantId, sessions.sessionId],
    name,
  }).onDelete("cascade");

export const toolCallRecords = pgTable(
  "tool_call_records",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    key: text("key").notNull(),
    /** Insertion order: "first seen wins" for content-hash canonicals. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    toolCallId: text("tool_call_id").notNull(),
    toolName: text("tool_name").notNull(),
    args: jsonb("args").$type<Record<string, unknown>>().notNull(),
    /** "" when the body is stored out of line (`stored_body`). */
    resultText: text("result_text").notNull(),
    isError: boolean("is_error").notNull().default(false),
    turnIndex: integer("turn_index").notNull(),
    batchTimestamp: bigint("batch_timestamp", { mode: "number" }).notNull(),
    resultTimestamp: bigint("result_timestamp", { mode: "number" }),
    shortRef: text("short_ref"),
    contentHash: text("content_hash"),
    storedBytes: integer("stored_bytes"),
    storedPreview: text("stored_preview"),
    /** Full body of an oversized result; served only by recovery lookups, never in deltas. */
    storedBody: text("stored_body"),
    /** Parts of a body kept in capture_bodies (uploaded out of line) and its length in characters. */
    storedParts: integer("stored_parts"),
    storedChars: integer("stored_chars"),
    summaryId: text("summary_id"),
    backfilled: boolean("backfilled").notNull().default(false),
    version: bigint("version", { mode: "number" }).notNull(),
    flushRequestId: uuid("flush_request_id"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.key] }),
    // A short ref is minted once: two records can never carry the same tN in one session.
    uniqueIndex("tool_call_records_ref_uq")
      .on(t.tenantId, t.sessionId, t.shortRef)
      .where(sql`${t.shortRef} is not null`),
    index("tool_call_records_version_idx").on(t.tenantId, t.sessionId, t.version),
    index("tool_call_records_bare_id_idx").on(t.tenantId, t.sessionId, t.toolCallId),
    // Dedup canonicals: session scope and tenant scope.
    index("tool_call_records_session_hash_idx")
      .on(t.tenantId, t.sessionId, t.contentHash)
      .where(sql`${t.contentHash} is not null and not ${t.backfilled}`),
    index("tool_call_records_tenant_hash_idx")
      .on(t.tenantId, t.contentHash, t.seq)
      .where(sql`${t.contentHash} is not null and not ${t.backfilled}`),
    sessionFk("tool_call_records_session_fk", t),
  ],
);

export const summaries = pgTable(
  "summaries",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    /** Deterministic (derived from the covered keys), so a re-run writes the same row. */
    id: text("id").notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    text: text("text").notNull(),
    refs: jsonb("refs").$type<SummaryRef[]>().notNull(),
    coverage: jsonb("coverage").$type<string[]>().notNull(),
    toolNames: jsonb("tool_names").$type<string[]>().notNull(),
    turnIndex: integer("turn_index").notNull(),
    timestamp: bigint("timestamp", { mode: "number" }).notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    flushRequestId: uuid("flush_request_id"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.id] }),
    index("summaries_version_idx").on(t.tenantId, t.sessionId, t.version),
    sessionFk("summaries_session_fk", t),
  ],
);

export const dedupAliases = pgTable(
  "dedup_aliases",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    key: text("key").notNull(),
    /** Bare provider id of `key`, for "every occurrence of this id" recovery lookups. */
    toolCallId: text("tool_call_id").notNull(),
    originalKey: text("original_key").notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    flushRequestId: uuid("flush_request_id"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.key] }),
    index("dedup_aliases_version_idx").on(t.tenantId, t.sessionId, t.version),
    index("dedup_aliases_bare_id_idx").on(t.tenantId, t.sessionId, t.toolCallId),
    sessionFk("dedup_aliases_session_fk", t),
  ],
);

export const frontiers = pgTable(
  "frontiers",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    lastAttemptedToolCallId: text("last_attempted_tool_call_id").notNull(),
    lastAttemptedToolName: text("last_attempted_tool_name").notNull(),
    lastAttemptedTurnIndex: integer("last_attempted_turn_index").notNull(),
    lastAttemptedTimestamp: bigint("last_attempted_timestamp", { mode: "number" }).notNull(),
    attemptedBatchCount: integer("attempted_batch_count").notNull(),
    attemptedToolCallCount: integer("attempted_tool_call_count").notNull(),
    rawCharCount: integer("raw_char_count").notNull(),
    summaryCharCount: integer("summary_char_count").notNull(),
    outcome: text("outcome").$type<FlushOutcome>().notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.sessionId] }), sessionFk("frontiers_session_fk", t)],
);

export const chains = pgTable(
  "chains",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    blockId: text("block_id").notNull(),
    startUserTimestamp: bigint("start_user_timestamp", { mode: "number" }).notNull(),
    finalAssistantTimestamp: bigint("final_assistant_timestamp", { mode: "number" }),
    droppedToolCallIds: jsonb("dropped_tool_call_ids").$type<string[]>().notNull(),
    droppedOccurrenceKeys: jsonb("dropped_occurrence_keys").$type<string[]>(),
    protectedToolCallIds: jsonb("protected_tool_call_ids").$type<string[]>(),
    toolRefs: jsonb("tool_refs").$type<string[]>().notNull(),
    compressedAt: bigint("compressed_at", { mode: "number" }).notNull(),
    rangeSummaryText: text("range_summary_text"),
    bodySource: text("body_source").$type<ChainBodySource>(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    flushRequestId: uuid("flush_request_id"),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.startUserTimestamp] }),
    uniqueIndex("chains_block_uq").on(t.tenantId, t.sessionId, t.blockId),
    index("chains_version_idx").on(t.tenantId, t.sessionId, t.version),
    sessionFk("chains_session_fk", t),
  ],
);
