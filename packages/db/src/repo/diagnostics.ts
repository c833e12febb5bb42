/** Render-time diagnostics (CAP-DIAG): stored once per (session, kind, dedup key). */
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { diagnostics } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

export interface DiagnosticReport {
  kind: string;
  dedupKey: string;
  detail?: string;
}

/** Returns how many of the reports were new. */
export async function recordDiagnostics(db: Db, input: SessionKey & { reports: DiagnosticReport[] }): Promise<number> {
  if (input.reports.length === 0) return 0;
  const rows = await db
    .insert(diagnostics)
    .values(
      input.reports.map((r) => ({
        tenantId: input.tenantId,
        sessionId: input.sessionId,
        kind: r.kind,
        dedupKey: r.dedupKey,
        detail: r.detail ?? "",
      })),
    )
    .onConflictDoNothing({
      target: [diagnostics.tenantId, diagnostics.sessionId, diagnostics.kind, diagnostics.dedupKey],
    })
    .returning({ id: diagnostics.id });
  return rows.length;
}

/** Diagnostics stored for one session, per kind (the client's and the worker's, e.g. backfill-empty). */
export async function diagnosticCounts(db: Db, key: SessionKey): Promise<Record<string, number>> {
  const rows = await db
    .select({ kind: diagnostics.kind, n: sql<number>`count(*)`.mapWith(Number) })
    .from(diagnostics)
    .where(and(eq(diagnostics.tenantId, key.tenantId), eq(diagnostics.sessionId, key.sessionId)))
    .groupBy(diagnostics.kind);
  return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
}

/** Diagnostics of a tenant's sessions first reported since `since`, per kind. */
export async function tenantDiagnosticCounts(db: Db, tenantId: string, since: Date): Promise<Record<string, number>> {
  const rows = await db
    .select({ kind: diagnostics.kind, n: sql<number>`count(*)`.mapWith(Number) })
    .from(diagnostics)
    .where(and(eq(diagnostics.tenantId, tenantId), gte(diagnostics.createdAt, since)))
    .groupBy(diagnostics.kind);
  return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
}
