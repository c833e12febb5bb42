/**
 * Session versions for many sessions in one query: the API's SSE hub polls the versions of every
 * session that has an open event stream, so one round trip per tick instead of one per stream.
 */
import { and, eq, inArray, or } from "drizzle-orm";
import type { Db } from "../client.ts";
import { sessions } from "../schema/index.ts";
import type { SessionKey } from "../repo/sessions.ts";

/** `${tenantId}\u0000${sessionId}` -> version, for the sessions that exist. */
export async function getSessionVersions(db: Db, keys: readonly SessionKey[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  const byTenant = new Map<string, string[]>();
  for (const k of keys) {
    const list = byTenant.get(k.tenantId);
    if (list) list.push(k.sessionId); else byTenant.set(k.tenantId, [k.sessionId]);
  }
  const rows = await db
    .select({ tenantId: sessions.tenantId, sessionId: sessions.sessionId, version: sessions.version })
    .from(sessions)
    .where(or(...[...byTenant].map(([tenantId, ids]) => and(eq(sessions.tenantId, tenantId), inArray(sessions.sessionId, ids)))));
  for (const r of rows) out.set(`${r.tenantId}\u0000${r.sessionId}`, r.version);
  return out;
}
