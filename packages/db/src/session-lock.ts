/**
 * The per-session write lock. Every writer of a session's counters (`next_ref`, `next_block`,
 * `version`) and state rows takes it first, inside its transaction, so two stalled-but-alive workers
 * for one session commit one after the other. Released at commit or rollback.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Tx } from "./client.ts";

/** A stable signed 64-bit lock key for (tenant, session), computed here so no SQL hash function is assumed. */
export function sessionLockKey(tenantId: string, sessionId: string): string {
  const digest = createHash("sha256").update(tenantId).update("\0").update(sessionId).digest();
  return digest.readBigInt64BE(0).toString();
}

export async function lockSession(tx: Tx, tenantId: string, sessionId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${sessionLockKey(tenantId, sessionId)}::bigint)`);
}
