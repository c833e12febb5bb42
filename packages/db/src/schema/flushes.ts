/**
 * Flush requests (what a client asked for) and flush metrics (one row per worker attempt, whatever
 * the outcome; Grafana reads this table directly).
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  doublePrecision,
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
import type { FlushOutcome } from "@condense/core";
import { sessions } from "./sessions.ts";

export const FLUSH_REQUEST_STATUSES = ["queued", "committed", "failed", "coalesced"] as const;
export type FlushRequestStatus = (typeof FLUSH_REQUEST_STATUSES)[number];
/** What a flush attempt ended as: a core FlushOutcome. */
/** A worker attempt's outcome, or `coalesced`: a request folded into a later one (attempt 0, no run). */
export type FlushMetricsOutcome = FlushOutcome | "coalesced";

export const flushRequests = pgTable(
  "flush_requests",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    trigger: text("trigger").notNull(),
    /** Pre-flush context-metrics snapshot the client took. */
    metrics: jsonb("metrics").$type<Record<string, unknown>>().notNull().default({}),
    /** Closed chains the client detected, for chain compression after the flush. */
    chains: jsonb("chains").$type<unknown[]>().notNull().default([]),
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
    /** Max capture seq of the session when the request was made: the job's cursor. */
    cursor: bigint("cursor", { mode: "number" }).notNull().default(0),
    status: text("status").$type<FlushRequestStatus>().notNull().default("queued"),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
    committedVersion: bigint("committed_version", { mode: "number" }),
    /** What commitFlush returned; a re-run of a committed request returns this unchanged. */
    result: jsonb("result").$type<Record<string, unknown>>(),
    chainsResult: jsonb("chains_result").$type<Record<string, unknown>>(),
    coalescedInto: uuid("coalesced_into"),
    /**
     * Short refs reserved for this request before its summarizer calls (occurrence key -> `tN`), so a
     * retried job hands the summarizer, and commits, the same refs (repo/ref-reservation.ts).
     */
    refReservation: jsonb("ref_reservation").$type<Record<string, string>>(),
  },
  (t) => [
    index("flush_requests_session_idx").on(t.tenantId, t.sessionId, t.requestedAt),
    index("flush_requests_queued_idx").on(t.tenantId, t.sessionId).where(sql`${t.status} = 'queued'`),
    foreignKey({
      columns: [t.tenantId, t.sessionId],
      foreignColumns: [sessions.tenantId, sessions.sessionId],
      name: "flush_requests_session_fk",
    }).onDelete("cascade"),
  ],
);

/** One summary's producer, as recorded in `flush_metrics.summary_models`. */
export interface SummaryModel {
  summaryId: string;
  model: string;
  bodySource: string;
}

export const flushMetrics = pgTable(
  "flush_metrics",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    flushRequestId: uuid("flush_request_id").notNull(),
    attempt: integer("attempt").notNull(),
    trigger: text("trigger").notNull(),
    outcome: text("outcome").$type<FlushMetricsOutcome>().notNull(),
    reason: text("reason"),
    capturedBatches: integer("captured_batches").notNull().default(0),
    processedBatches: integer("processed_batches").notNull().default(0),
    attemptedCalls: integer("attempted_calls").notNull().default(0),
    dedupHits: integer("dedup_hits").notNull().default(0),
    rawChars: integer("raw_chars").notNull().default(0),
    summaryChars: integer("summary_chars").notNull().default(0),
    metrics: jsonb("metrics").$type<Record<string, unknown>>().notNull().default({}),
    queueWaitMs: integer("queue_wait_ms"),
    runMs: integer("run_ms"),
    model: text("model"),
    bodySource: text("body_source"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cost: doublePrecision("cost").notNull().default(0),
    fidelityScore: doublePrecision("fidelity_score"),
    workerId: text("worker_id"),
    /** The model that produced each summary of this attempt: `[{ summaryId, model, bodySource }]`. */
    summaryModels: jsonb("summary_models").$type<SummaryModel[]>(),
    /** Where the attempt's summarizer came from: handed-off, operator, worker-default or deterministic. */
    summarizerSource: text("summarizer_source"),
    /** Why the session's summarizerModel was not what summarized (a visible notice for status). */
    summarizerNotice: text("summarizer_notice"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    // The cost model's expectation sent with the flush request (economics/): cache tokens the flush
    // rewrites, cache reads it saves, and the agent's model. Generated from the request's metrics
    // snapshot, so every path that writes a row fills them; a non-number yields null, never an error.
    expectedCacheWriteTokens: bigint("expected_cache_write_tokens", { mode: "number" }).generatedAlwaysAs(
      sql`CASE WHEN jsonb_typeof(metrics->'expectedCacheWriteTokens') = 'number' THEN CASE WHEN (metrics->>'expectedCacheWriteTokens')::numeric BETWEEN 0 AND 1e15 THEN round((metrics->>'expectedCacheWriteTokens')::numeric)::bigint END END`,
    ),
    expectedCacheReadSavedTokens: bigint("expected_cache_read_saved_tokens", { mode: "number" }).generatedAlwaysAs(
      sql`CASE WHEN jsonb_typeof(metrics->'expectedCacheReadSavedTokens') = 'number' THEN CASE WHEN (metrics->>'expectedCacheReadSavedTokens')::numeric BETWEEN 0 AND 1e15 THEN round((metrics->>'expectedCacheReadSavedTokens')::numeric)::bigint END END`,
    ),
    agentModel: text("agent_model").generatedAlwaysAs(
      sql`CASE WHEN jsonb_typeof(metrics->'agentModel') = 'string' THEN metrics->>'agentModel' END`,
    ),
  },
  (t) => [
    // A retried job cannot write the same attempt twice.
    uniqueIndex("flush_metrics_attempt_uq").on(t.flushRequestId, t.attempt),
    index("flush_metrics_created_idx").on(t.createdAt),
    index("flush_metrics_tenant_created_idx").on(t.tenantId, t.createdAt),
    index("flush_metrics_session_idx").on(t.tenantId, t.sessionId, t.createdAt),
  ],
);
