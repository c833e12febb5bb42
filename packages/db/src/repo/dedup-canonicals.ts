/**
 * Content-hash canonicals for pre-flush dedup (CAP-FLUSH-3): for each hash, the first record ever
 * indexed with it (backfilled records never seed canonicals). Scope "session" looks in one session,
 * scope "tenant" (sessionId null) across all sessions of the tenant, never beyond it.
 */
import { and, asc, eq, getTableColumns, inArray, isNotNull, sql } from "drizzle-orm";
import type { ToolCallRecord } from "@condense/core";
import type { Db } from "../client.ts";
import { dedupAliases, toolCallRecords } from "../schema/index.ts";
import { chunks } from "./bulk-upsert.ts";
import { recordFromRow } from "./state-rows.ts";

export interface CanonicalRecord {
  sessionId: string;
  record: ToolCallRecord;
  /** Full body for stored (oversized) records, so a tenant-scope hit can be copied into another session. */
  storedBody: string | null;
  /**
   * With `presentIn`: whether the canonical's key already has a record or an alias in that session
   * (a tenant-scope canonical copied there by an earlier flush), read in the same statement.
   */
  presentInSession?: boolean;
}

export async function findCanonicalByHash(
  db: Db,
  input: { tenantId: string; sessionId: string | null; hashes: string[]; presentIn?: string },
): Promise<Map<string, CanonicalRecord>> {
  const out = new Map<string, CanonicalRecord>();
  const presentIn = input.presentIn;
  const present = presentIn === undefined ? sql<boolean>`null` : sql<boolean>`(exists (select 1 from ${toolCallRecords} r where r.tenant_id = ${input.tenantId} and r.session_id = ${presentIn} and r.key = "tool_call_records"."key")
    or exists (select 1 from ${dedupAliases} a where a.tenant_id = ${input.tenantId} and a.session_id = ${presentIn} and a.key = "tool_call_records"."key"))`;
  for (const chunk of chunks([...new Set(input.hashes)], 500)) {
    const rows = await db
      .selectDistinctOn([toolCallRecords.contentHash], { ...getTableColumns(toolCallRecords), presentInSession: present })
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
    for (const r of rows) {
      out.set(r.contentHash!, { sessionId: r.sessionId, record: recordFromRow(r), storedBody: r.storedBody, ...(presentIn !== undefined ? { presentInSession: r.presentInSession === true } : {}) });
    }
  }
  return out;
}
