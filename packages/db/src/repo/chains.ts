/**
 * The chains table: row <-> core ChainEntry, and which chain starts a session has compressed already.
 * Chains are written by the chain commit (chain-commit.ts), which issues their block ids.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { ChainEntry } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { chunks } from "../chunks.ts";
import { chains } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

type ChainRow = typeof chains.$inferSelect;

/** Of these chain start timestamps, the ones the session has compressed already. */
export async function compressedChainStarts(
  tx: Db | Tx,
  key: SessionKey,
  starts: readonly number[],
): Promise<Set<number>> {
  const existing = new Set<number>();
  for (const chunk of chunks(starts, 1000)) {
    const rows = await tx
      .select({ start: chains.startUserTimestamp })
      .from(chains)
      .where(
        and(
          eq(chains.tenantId, key.tenantId),
          eq(chains.sessionId, key.sessionId),
          inArray(chains.startUserTimestamp, chunk),
        ),
      );
    for (const r of rows) existing.add(r.start);
  }
  return existing;
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

export function chainToRow(
  tenantId: string,
  sessionId: string,
  version: number,
  flushRequestId: string | null,
  c: ChainEntry,
) {
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

/** A session's compressed chains. */
export async function chainCount(db: Db, key: SessionKey): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(chains)
    .where(and(eq(chains.tenantId, key.tenantId), eq(chains.sessionId, key.sessionId)));
  return row?.n ?? 0;
}
