/**
 * Content-hash canonicals for pre-flush dedup (CAP-FLUSH-3): for each hash, the first record ever
 * indexed with it (backfilled records never seed canonicals). Scope "session" looks in one session,
 * scope "tenant" (sessionId null) across all sessions of the tenant, never beyond it.
 */
import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { ToolCallRecord } from "@condense/core";
import type { Db } from "../client.ts";
import { toolCallRecords } from "../schema/index.ts";
import { chunks } from "./bulk-upsert.ts";
import { recordFromRow } from "./state-rows.ts";

export interface CanonicalRecord {
  sessionId: string;
  record: ToolCallRecord;
  /** Full body for stored (oversized) records, so a tenant-scope hit can be copied into another session. */
  storedBody: string | null;
}

export async function findCanonicalByHash(
  db: Db,
  input: { tenantId: string; sessionId: string | null; hashes: string[] },
): Promise<Map<string, CanonicalRecord>> {
  const out = new Map<string, CanonicalRecord>();
  for (const chunk of chunks([...new Set(input.hashes)], 500)) {
    const rows = await db
      .selectDistinctOn([toolCallRecords.contentHash])
      .from(toolCallRecords)
      .where(
        and(
          eq(toolCallRecords.tenantId, input.tenantId),
          input.sessionId === null ? undefined : eq(toolCallRecords.sessionId, input.sessionId),
          isNotNull(toolCallRecords.contentHash),
          sql`not ${toolCallRecords.backfilled}`,
          inArray(toolCallRecords.contentHash, chunk),
        ),
      )
      .orderBy(toolCallRecords.contentHash, asc(toolCallRecords.seq));
    for (const r of rows) out.set(r.contentHash!, { sessionId: r.sessionId, record: recordFromRow(r), storedBody: r.storedBody });
  }
  return out;
}
