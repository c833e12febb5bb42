/** The recoveries table: every `context_tree_query` hit (the lookup itself: tool-call-records.ts). */
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { recoveries } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

export interface RecoveryHitWrite {
  query: string;
  toolName: string;
  key: string;
  ref?: string | null;
}

export async function recordRecovery(db: Db, input: SessionKey & { hits: RecoveryHitWrite[] }): Promise<number> {
  if (input.hits.length === 0) return 0;
  const rows = await db
    .insert(recoveries)
    .values(
      input.hits.map((h) => ({
        tenantId: input.tenantId,
        sessionId: input.sessionId,
        query: h.query,
        toolName: h.toolName,
        key: h.key,
        ref: h.ref ?? null,
      })),
    )
    .returning({ id: recoveries.id });
  return rows.length;
}

/** Recovery hits of a session, or of a tenant's sessions since `since`. */
export async function recoveryCount(
  db: Db,
  scope: { tenantId: string; sessionId?: string; since?: Date },
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(recoveries)
    .where(
      and(
        eq(recoveries.tenantId, scope.tenantId),
        scope.sessionId === undefined ? undefined : eq(recoveries.sessionId, scope.sessionId),
        scope.since === undefined ? undefined : gte(recoveries.at, scope.since),
      ),
    );
  return row?.n ?? 0;
}
