/**
 * The sessions table: creation on first contact, the settings snapshot, the paged listing, versions
 * for many sessions at once (the API's SSE hub), the row read under lock by the transactions that
 * advance its counters, and the tenant-wide counts of fleet status.
 */
import { and, desc, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import { emptyStats, type SummarizerStats } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { NotFoundError } from "../errors.ts";
import { captures, sessions } from "../schema/index.ts";

export interface SessionKey {
  tenantId: string;
  sessionId: string;
}

export interface SessionRow {
  tenantId: string;
  sessionId: string;
  nextRef: number;
  nextBlock: number;
  version: number;
  settings: Record<string, unknown>;
  stats: SummarizerStats;
  createdAt: Date;
  updatedAt: Date;
  lastCaptureAt: Date | null;
  lastFlushAt: Date | null;
}

const sessionColumns = {
  tenantId: sessions.tenantId,
  sessionId: sessions.sessionId,
  nextRef: sessions.nextRef,
  nextBlock: sessions.nextBlock,
  version: sessions.version,
  settings: sessions.settings,
  stats: sessions.stats,
  createdAt: sessions.createdAt,
  updatedAt: sessions.updatedAt,
  lastCaptureAt: sessions.lastCaptureAt,
  lastFlushAt: sessions.lastFlushAt,
};

/**
 * Create the session if it is new. `settings`, when given, replaces the stored snapshot (the client
 * sends its normalized settings); omitted, an existing snapshot is kept.
 */
export async function ensureSession(
  db: Db,
  input: SessionKey & { settings?: Record<string, unknown> },
): Promise<SessionRow> {
  const base = db.insert(sessions).values({
    tenantId: input.tenantId,
    sessionId: input.sessionId,
    settings: input.settings ?? {},
    stats: emptyStats(),
  });
  const rows = input.settings
    ? await base
        .onConflictDoUpdate({
          target: [sessions.tenantId, sessions.sessionId],
          set: { settings: input.settings, updatedAt: sql`now()` },
        })
        .returning(sessionColumns)
    : await base.onConflictDoNothing().returning(sessionColumns);
  const row = rows[0] ?? (await getSession(db, input));
  if (!row)
    throw new NotFoundError("session", `${input.tenantId}/${input.sessionId}`, "(deleted right after its insert)");
  return row;
}

export async function getSession(db: Db, key: SessionKey): Promise<SessionRow | null> {
  const [row] = await db
    .select(sessionColumns)
    .from(sessions)
    .where(and(eq(sessions.tenantId, key.tenantId), eq(sessions.sessionId, key.sessionId)));
  return row ?? null;
}

export interface SessionListItem {
  sessionId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  lastFlushAt: Date | null;
  pendingCaptures: number;
}

export interface SessionPage {
  sessions: SessionListItem[];
  nextCursor: string | null;
}

/** Most recently updated first; `cursor` is the opaque `nextCursor` of the previous page. */
export async function listSessions(
  db: Db,
  tenantId: string,
  paging: { limit?: number; cursor?: string | null } = {},
): Promise<SessionPage> {
  const limit = Math.min(Math.max(paging.limit ?? 50, 1), 500);
  const after = paging.cursor ? decodeCursor(paging.cursor) : null;
  // Written with explicit qualifiers: drizzle renders a column of the outer table unqualified, which
  // inside this subquery would bind to the captures alias instead.
  const pending = sql<number>`(select count(*)::int from ${captures} c where c.tenant_id = "sessions"."tenant_id" and c.session_id = "sessions"."session_id" and c.status = 'pending')`;
  const rows = await db
    .select({
      sessionId: sessions.sessionId,
      version: sessions.version,
      createdAt: sessions.createdAt,
      updatedAt: sessions.updatedAt,
      lastFlushAt: sessions.lastFlushAt,
      pendingCaptures: pending.mapWith(Number),
    })
    .from(sessions)
    .where(
      and(
        eq(sessions.tenantId, tenantId),
        after
          ? or(
              lt(sessions.updatedAt, after.updatedAt),
              and(eq(sessions.updatedAt, after.updatedAt), sql`${sessions.sessionId} > ${after.sessionId}`),
            )
          : undefined,
      ),
    )
    .orderBy(desc(sessions.updatedAt), sessions.sessionId)
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    sessions: page,
    nextCursor: rows.length > limit && last ? encodeCursor(last.updatedAt, last.sessionId) : null,
  };
}

// Session timestamps have millisecond precision (schema), so a Date round-trips exactly in the cursor.
function encodeCursor(updatedAt: Date, sessionId: string): string {
  return Buffer.from(JSON.stringify([updatedAt.toISOString(), sessionId])).toString("base64url");
}

function decodeCursor(cursor: string): { updatedAt: Date; sessionId: string } {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const updatedAt = new Date(ts);
    if (typeof id !== "string" || Number.isNaN(updatedAt.getTime())) throw new Error("bad cursor");
    return { updatedAt, sessionId: id };
  } catch {
    throw new InvalidCursorError(cursor);
  }
}

export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`invalid paging cursor: ${cursor.slice(0, 40)}`);
    this.name = "InvalidCursorError";
  }
}

/**
 * Session versions for many sessions in one query: the API's SSE hub polls the versions of every
 * session that has an open event stream, so one round trip per tick instead of one per stream.
 */
/** `${tenantId}\u0000${sessionId}` -> version, for the sessions that exist. */
export async function getSessionVersions(db: Db, keys: readonly SessionKey[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  const byTenant = new Map<string, string[]>();
  for (const k of keys) {
    const list = byTenant.get(k.tenantId);
    if (list) list.push(k.sessionId);
    else byTenant.set(k.tenantId, [k.sessionId]);
  }
  const rows = await db
    .select({ tenantId: sessions.tenantId, sessionId: sessions.sessionId, version: sessions.version })
    .from(sessions)
    .where(
      or(
        ...[...byTenant].map(([tenantId, ids]) =>
          and(eq(sessions.tenantId, tenantId), inArray(sessions.sessionId, ids)),
        ),
      ),
    );
  for (const r of rows) out.set(`${r.tenantId}\u0000${r.sessionId}`, r.version);
  return out;
}

/**
 * The counters of a session, read in a transaction that advances them (the chain commit, the locked
 * ref reservation) after the session lock. NO KEY UPDATE: the API's capture inserts (foreign-key KEY
 * SHARE on this row) are not blocked.
 */
export async function loadSessionForUpdate(
  tx: Tx,
  key: SessionKey,
): Promise<{ nextRef: number; nextBlock: number; version: number; stats: SummarizerStats }> {
  const [row] = await tx
    .select({
      nextRef: sessions.nextRef,
      nextBlock: sessions.nextBlock,
      version: sessions.version,
      stats: sessions.stats,
    })
    .from(sessions)
    .where(and(eq(sessions.tenantId, key.tenantId), eq(sessions.sessionId, key.sessionId)))
    .for("no key update");
  if (!row) throw new NotFoundError("session", `${key.tenantId}/${key.sessionId}`);
  return { ...row, version: Number(row.version) };
}

/** A tenant's sessions, and those updated since `since`. */
export async function tenantSessionCounts(
  db: Db,
  tenantId: string,
  since: Date,
): Promise<{ total: number; active: number }> {
  const [row] = await db
    .select({
      total: sql<number>`count(*)`.mapWith(Number),
      active: sql<number>`count(*) filter (where ${gte(sessions.updatedAt, since)})`.mapWith(Number),
    })
    .from(sessions)
    .where(eq(sessions.tenantId, tenantId));
  return { total: row?.total ?? 0, active: row?.active ?? 0 };
}
