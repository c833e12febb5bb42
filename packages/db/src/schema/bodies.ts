/**
 * Result bodies that travel and stay out of line (issue 17 item 1): an output too large to ride inside
 * a capture POST is uploaded in parts first, keyed by its occurrence, and the capture only refers to
 * it. Parts are kept after the capture commits: recovery pages read just the parts a page covers.
 */
import { foreignKey, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { sessions } from "./sessions.ts";

export const captureBodies = pgTable(
  "capture_bodies",
  {
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id").notNull(),
    occurrenceKey: text("occurrence_key").notNull(),
    part: integer("part").notNull(),
    /** Offset of the part's first character in the whole body (UTF-16 code units). */
    startChar: integer("start_char").notNull(),
    chars: integer("chars").notNull(),
    text: text("text").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sessionId, t.occurrenceKey, t.part] }),
    foreignKey({
      columns: [t.tenantId, t.sessionId],
      foreignColumns: [sessions.tenantId, sessions.sessionId],
      name: "capture_bodies_session_fk",
    }).onDelete("cascade"),
  ],
);
