/** The frontiers table (one row per session): row <-> core Frontier (written by the flush commit, flush-commit.ts). */
import type { Frontier } from "@condense/core";
import { and, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { frontiers } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

type FrontierRow = typeof frontiers.$inferSelect;

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

/** A session's frontier; null before its first flush. */
export async function getFrontier(db: Db, key: SessionKey): Promise<Frontier | null> {
  const [row] = await db
    .select()
    .from(frontiers)
    .where(and(eq(frontiers.tenantId, key.tenantId), eq(frontiers.sessionId, key.sessionId)));
  return row ? frontierFromRow(row) : null;
}
