/**
 * Captured tool calls waiting for (or settled by) a flush. One row per occurrence; `seq` is the
 * cursor a flush job carries ("include captures up to seq N"). Result text stays in Postgres (TOAST).
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
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { sessions } from "./sessions.ts";

export const CAPTURE_STATUSES = ["pending", "summarized", "skipped", "deduped", "stored"] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];

export const captures = pgTable(
  "captures",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    occurrenceKey: text("occurrence_key").notNull(),
    /** The client's id for the POST that carried this call; a retried POST repeats it. */
    captureId: text("capture_id").notNull(),
    /** Position of the batch inside that POST and of the call inside the batch. */
    batchIndex: integer("batch_index").notNull(),
    callIndex: integer("call_index").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    toolName: text("tool_name").notNull(),
    args: jsonb("args").$type<Record<string, unknown>>().notNull(),
    resultText: text("result_text").notNull(),
    isError: boolean("is_error").notNull().default(false),
    resultTimestamp: bigint("result_timestamp", { mode: "number" }),
    contentHash: text("content_hash"),
    turnIndex: integer("turn_index").notNull(),
    batchTimestamp: bigint("batch_timestamp", { mode: "number" }).notNull(),
    assistantText: text("assistant_text").notNull().default(""),
    userTurnGroup: integer("user_turn_group"),
    /** Parts of a body uploaded out of line (capture_bodies); null when the result travelled inline. */
    bodyParts: integer("body_parts"),
    status: text("status").$type<CaptureStatus>().notNull().default("pending"),
    statusReason: text("status_reason"),
    settledBy: uuid("settled_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("captures_occurrence_uq").on(t.tenantId, t.sessionId, t.occurrenceKey),
    // loadPendingCaptures: pending rows of one session in cursor order.
    index("captures_pending_idx").on(t.tenantId, t.sessionId, t.seq).where(sql`${t.status} = 'pending'`),
    index("captures_capture_id_idx").on(t.tenantId, t.sessionId, t.captureId),
    // getStateDelta: the skipped keys a commit settled (the coverage a client must not resend).
    index("captures_skipped_idx").on(t.tenantId, t.sessionId, t.settledBy).where(sql`${t.status} = 'skipped'`),
    foreignKey({
      columns: [t.tenantId, t.sessionId],
      foreignColumns: [sessions.tenantId, sessions.sessionId],
      name: "captures_session_fk",
    }).onDelete("cascade"),
  ],
);
