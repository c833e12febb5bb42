/**
 * One row per (tenant, client-chosen session id). Owns the counters that never go back: `next_ref`
 * (short refs `tN` are minted from it, never reused), `version` (bumped by every committed state
 * change; state deltas are "rows with version > since") and `commit_seq` (bumped by every commit).
 */
import { bigint, integer, jsonb, pgTable, primaryKey, text, timestamp, index } from "drizzle-orm/pg-core";
import type { SummarizerStats } from "@condense/core";
import { tenants } from "./tenants.ts";

export const sessions = pgTable(
  "sessions",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    sessionId: text("session_id").notNull(),
    nextRef: integer("next_ref").notNull().default(1),
    /** Next chain block number (`b<N>`), monotonic per session like refs. */
    nextBlock: integer("next_block").notNull().default(1),
    version: bigint("version", { mode: "number" }).notNull().default(0),
    /**
     * Bumped by every flush and chain commit (unlike `version`, also by commits that change no state,
     * e.g. a flush that only settles skipped captures). A worker reads it with the pending captures and
     * commits on condition that it is unchanged: the optimistic, lock-free commit of `commitFlush`.
     */
    commitSeq: integer("commit_seq").notNull().default(0),
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
    stats: jsonb("stats").$type<SummarizerStats>().notNull(),
    /** Version at which `stats` last changed, so a delta carries stats only when they moved. */
    statsVersion: bigint("stats_version", { mode: "number" }).notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastCaptureAt: timestamp("last_capture_at", { withTimezone: true, precision: 3 }),
    lastFlushAt: timestamp("last_flush_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId] }),
    index("sessions_tenant_updated_idx").on(t.tenantId, t.updatedAt, t.sessionId),
  ],
);
