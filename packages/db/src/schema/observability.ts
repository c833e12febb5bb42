/**
 * Out-of-band signals: render-time diagnostics (reported once per (kind, dedup key)) and recoveries
 * (every `context_tree_query` hit: the sign that a summary lost something the agent needed).
 */
import { bigserial, foreignKey, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sessions } from "./sessions.ts";

export const diagnostics = pgTable(
  "diagnostics",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    kind: text("kind").notNull(),
    dedupKey: text("dedup_key").notNull(),
    detail: text("detail").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("diagnostics_once_uq").on(t.tenantId, t.sessionId, t.kind, t.dedupKey),
    index("diagnostics_tenant_created_idx").on(t.tenantId, t.createdAt),
    foreignKey({
      columns: [t.tenantId, t.sessionId],
      foreignColumns: [sessions.tenantId, sessions.sessionId],
      name: "diagnostics_session_fk",
    }).onDelete("cascade"),
  ],
);

export const recoveries = pgTable(
  "recoveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    /** What the agent asked for (a tN, raw id or occurrence key). */
    query: text("query").notNull(),
    toolName: text("tool_name").notNull(),
    key: text("key").notNull(),
    ref: text("ref"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("recoveries_session_idx").on(t.tenantId, t.sessionId, t.at),
    index("recoveries_tenant_at_idx").on(t.tenantId, t.at),
    foreignKey({
      columns: [t.tenantId, t.sessionId],
      foreignColumns: [sessions.tenantId, sessions.sessionId],
      name: "recoveries_session_fk",
    }).onDelete("cascade"),
  ],
);
