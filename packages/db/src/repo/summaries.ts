/** The summaries table: row <-> core SummaryEntry (rows are written by the flush commit, flush-commit.ts). */
import type { SummaryEntry } from "@condense/core";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { summaries } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

type SummaryRow = typeof summaries.$inferSelect;

export function summaryFromRow(s: SummaryRow): SummaryEntry {
  return {
    id: s.id,
    text: s.text,
    refs: s.refs,
    coverage: s.coverage,
    toolNames: s.toolNames,
    turnIndex: s.turnIndex,
    timestamp: s.timestamp,
  };
}

export function summaryToRow(
  tenantId: string,
  sessionId: string,
  version: number,
  flushRequestId: string | null,
  s: SummaryEntry,
) {
  return {
    tenantId,
    sessionId,
    id: s.id,
    text: s.text,
    refs: s.refs,
    coverage: s.coverage,
    toolNames: s.toolNames,
    turnIndex: s.turnIndex,
    timestamp: s.timestamp,
    version,
    flushRequestId,
  };
}

/** A session's summaries and their total text length. */
export async function summaryCounts(db: Db, key: SessionKey): Promise<{ summaries: number; chars: number }> {
  const [row] = await db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      chars: sql<number>`coalesce(sum(length(${summaries.text})), 0)`.mapWith(Number),
    })
    .from(summaries)
    .where(and(eq(summaries.tenantId, key.tenantId), eq(summaries.sessionId, key.sessionId)));
  return { summaries: row?.n ?? 0, chars: row?.chars ?? 0 };
}
