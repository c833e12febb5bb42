/** The dedup_aliases table: row <-> core DedupAlias (rows are written by the flush commit, flush-commit.ts). */
import { parseOccKey, type DedupAlias } from "@condense/core";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { dedupAliases } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

type AliasRow = typeof dedupAliases.$inferSelect;

export function aliasFromRow(a: AliasRow): DedupAlias {
  return { key: a.key, originalKey: a.originalKey };
}

export function aliasToRow(
  tenantId: string,
  sessionId: string,
  version: number,
  flushRequestId: string | null,
  a: DedupAlias,
) {
  return {
    tenantId,
    sessionId,
    key: a.key,
    toolCallId: parseOccKey(a.key).id,
    originalKey: a.originalKey,
    version,
    flushRequestId,
  };
}

/** A session's dedup aliases. */
export async function aliasCount(db: Db, key: SessionKey): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(dedupAliases)
    .where(and(eq(dedupAliases.tenantId, key.tenantId), eq(dedupAliases.sessionId, key.sessionId)));
  return row?.n ?? 0;
}
