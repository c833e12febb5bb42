/**
 * Recovery (`context_tree_query`, CAP-QUERY): resolve what the agent asked for to full records, and
 * log every hit. Resolution reuses core's `recordsForId` over just the rows that can match, so the
 * service answers exactly as the in-process state would (refs, aliases, reused ids, legacy keys).
 */
import { and, eq, inArray, or } from "drizzle-orm";
import { buildState, emptyStats, recordsForId, type ToolCallRecord } from "@condense/core";
import type { Db } from "../client.ts";
import { dedupAliases, recoveries, toolCallRecords } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";
import { aliasFromRow, recordFromRow } from "./state-rows.ts";

export interface RecoveredHit {
  label: string;
  legacy: boolean;
  ref: string | null;
  /** The record with its full body (stored bodies restored into `resultText`). */
  record: ToolCallRecord;
}

export interface RecoveryAnswer { input: string; hits: RecoveredHit[] }

export async function lookupRecordsForQuery(db: Db, input: SessionKey & { inputs: string[] }): Promise<RecoveryAnswer[]> {
  const { tenantId, sessionId } = input;
  const asked = [...new Set(input.inputs)].slice(0, 1000);
  if (asked.length === 0) return [];
  const scope = (t: typeof toolCallRecords | typeof dedupAliases) => and(eq(t.tenantId, tenantId), eq(t.sessionId, sessionId));
  const aliasRows = await db
    .select()
    .from(dedupAliases)
    .where(and(scope(dedupAliases), or(inArray(dedupAliases.key, asked), inArray(dedupAliases.toolCallId, asked))));
  const originals = aliasRows.map((a) => a.originalKey);
  const recordRows = await db
    .select()
    .from(toolCallRecords)
    .where(
      and(
        scope(toolCallRecords),
        or(
          inArray(toolCallRecords.key, [...asked, ...originals]),
          inArray(toolCallRecords.shortRef, asked),
          inArray(toolCallRecords.toolCallId, asked),
        ),
      ),
    )
    .orderBy(toolCallRecords.seq);
  const bodies = new Map(recordRows.filter((r) => r.storedBody !== null).map((r) => [r.key, r.storedBody!]));
  const state = buildState(0, recordRows.map(recordFromRow), [], aliasRows.map(aliasFromRow), [], null, emptyStats());
  return asked.map((q) => ({
    input: q,
    hits: recordsForId(state, q).map((h) => {
      // Aliases present the original's content under their own key; the body lives under the original.
      const origin = state.aliases.get(h.record.key) ?? h.record.key;
      const body = bodies.get(origin);
      return {
        label: h.label,
        legacy: h.legacy,
        ref: state.keyToRef.get(h.record.key) ?? h.record.shortRef ?? null,
        record: body !== undefined ? { ...h.record, resultText: body } : h.record,
      };
    }),
  }));
}

export interface RecoveryHitWrite { query: string; toolName: string; key: string; ref?: string | null }

export async function recordRecovery(db: Db, input: SessionKey & { hits: RecoveryHitWrite[] }): Promise<number> {
  if (input.hits.length === 0) return 0;
  const rows = await db
    .insert(recoveries)
    .values(input.hits.map((h) => ({ tenantId: input.tenantId, sessionId: input.sessionId, query: h.query, toolName: h.toolName, key: h.key, ref: h.ref ?? null })))
    .returning({ id: recoveries.id });
  return rows.length;
}
