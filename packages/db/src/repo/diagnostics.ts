/** Render-time diagnostics (CAP-DIAG): stored once per (session, kind, dedup key). */
import type { Db } from "../client.ts";
import { diagnostics } from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";

export interface DiagnosticReport { kind: string; dedupKey: string; detail?: string }

/** Returns how many of the reports were new. */
export async function recordDiagnostics(db: Db, input: SessionKey & { reports: DiagnosticReport[] }): Promise<number> {
  if (input.reports.length === 0) return 0;
  const rows = await db
    .insert(diagnostics)
    .values(input.reports.map((r) => ({ tenantId: input.tenantId, sessionId: input.sessionId, kind: r.kind, dedupKey: r.dedupKey, detail: r.detail ?? "" })))
    .onConflictDoNothing({ target: [diagnostics.tenantId, diagnostics.sessionId, diagnostics.kind, diagnostics.dedupKey] })
    .returning({ id: diagnostics.id });
  return rows.length;
}
