/**
 * The api_keys table. A key is `ck_<43 base64url chars>`; only its sha256 is stored. Minting,
 * authentication that honours a revocation deadline, revocation, rotation (a new secret, the old key
 * revoked now or after a grace period), and the revocation feed.
 *
 * A revoked key is one whose `revoked_at` has passed; rotation with a grace period writes a future
 * `revoked_at`, so the old key keeps working until then and no scheduled job is needed to end it.
 * Every change sends `NOTIFY condense_api_key_revoked, '<key id>'` in its transaction, so every API
 * process (other replicas, a server while the CLI revokes on its database) drops its cached answer
 * for that key when the change commits, instead of trusting it until its cache TTL runs out.
 */
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { apiKeys, tenants } from "../schema/index.ts";

export const API_KEY_PREFIX = "ck_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export interface CreatedApiKey {
  id: string;
  tenantId: string;
  prefix: string;
  label: string;
  /** Shown once; not stored. */
  key: string;
}

export async function createApiKey(
  db: Db,
  input: { tenantId: string; label?: string; key?: string },
): Promise<CreatedApiKey> {
  const key = input.key ?? API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prefix = key.slice(0, API_KEY_PREFIX.length + 6);
  const [row] = await db
    .insert(apiKeys)
    .values({ tenantId: input.tenantId, keyHash: hashApiKey(key), prefix, label: input.label ?? "" })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("api key insert returned no row");
  return { id: row.id, tenantId: input.tenantId, prefix, label: input.label ?? "", key };
}

export interface ApiKeyPrincipal {
  tenantId: string;
  keyId: string;
}

/** The tenant a presented key belongs to; null for unknown or revoked keys and disabled tenants. */
export async function authenticateApiKey(db: Db, key: string): Promise<ApiKeyPrincipal | null> {
  const found = await authenticateKeyWithDeadline(db, key);
  return found ? { tenantId: found.tenantId, keyId: found.keyId } : null;
}

export interface ApiKeyInfo {
  id: string;
  prefix: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyInfo[]> {
  return db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      label: apiKeys.label,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(asc(apiKeys.createdAt));
}

/** Returns false when the key does not exist for this tenant (or is already revoked). */
export async function revokeApiKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  return (await revokeTenantKey(db, { tenantId, keyId })) !== null;
}

export const KEY_REVOKED_CHANNEL = "condense_api_key_revoked";

export interface AuthenticatedKey {
  tenantId: string;
  keyId: string;
  /** When a rotated key stops working (grace period); null while the key has no end. */
  validUntil: Date | null;
}

/** The tenant a presented key belongs to; null for unknown keys, keys past their revocation, disabled tenants. */
export async function authenticateKeyWithDeadline(db: Db, key: string): Promise<AuthenticatedKey | null> {
  const [row] = await db
    .select({ keyId: apiKeys.id, tenantId: apiKeys.tenantId, validUntil: apiKeys.revokedAt })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(
      and(
        eq(apiKeys.keyHash, hashApiKey(key)),
        or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`)),
        isNull(tenants.disabledAt),
      ),
    );
  return row ?? null;
}

export interface ApiKeyListing {
  id: string;
  tenantId: string;
  prefix: string;
  label: string;
  createdAt: Date;
  /** When the key stopped (or, for a rotated key in its grace period, will stop) working. */
  revokedAt: Date | null;
  status: "active" | "expiring" | "revoked";
}

export async function listTenantKeys(db: Db, tenantId: string): Promise<ApiKeyListing[]> {
  const rows = await db
    .select({
      id: apiKeys.id,
      tenantId: apiKeys.tenantId,
      prefix: apiKeys.prefix,
      label: apiKeys.label,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
      // The database's clock decides, the same clock authentication compares against.
      expired: sql<boolean>`coalesce(${apiKeys.revokedAt} <= now(), false)`,
    })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map(({ expired, ...r }) => ({
    ...r,
    status: r.revokedAt === null ? "active" : expired ? "revoked" : "expiring",
  }));
}

export interface RevokedKey {
  id: string;
  tenantId: string;
  revokedAt: Date;
}

/**
 * Revokes a key now. Null when the tenant has no such key or it is already revoked; a key in a
 * rotation grace period is revoked at once (the operator changed their mind about the grace).
 */
export async function revokeTenantKey(db: Db, input: { tenantId: string; keyId: string }): Promise<RevokedKey | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(apiKeys.tenantId, input.tenantId),
          eq(apiKeys.id, input.keyId),
          or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, sql`now()`)),
        ),
      )
      .returning({ id: apiKeys.id, tenantId: apiKeys.tenantId, revokedAt: apiKeys.revokedAt });
    if (!row) return null;
    await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${row.id})`);
    return { id: row.id, tenantId: row.tenantId, revokedAt: row.revokedAt! };
  });
}

export interface RotatedKey {
  /** The new key; its plaintext is shown once. */
  created: CreatedApiKey;
  /** The old key and when it stops working (now, or now + grace). */
  old: { id: string; revokedAt: Date };
}

/**
 * Rotation: mint a key with the old key's label and end the old key after `graceSeconds` (0 = now),
 * in one transaction, so there is never a moment with neither key or with the old one left open.
 * Null when the tenant has no such active key (a key already past its revocation cannot be rotated).
 */
export async function rotateTenantKey(
  db: Db,
  input: { tenantId: string; keyId: string; graceSeconds?: number },
): Promise<RotatedKey | null> {
  const grace = Math.max(0, Math.floor(input.graceSeconds ?? 0));
  return db.transaction(async (tx) => {
    const [old] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now() + make_interval(secs => ${grace})` })
      .where(and(eq(apiKeys.tenantId, input.tenantId), eq(apiKeys.id, input.keyId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, label: apiKeys.label, revokedAt: apiKeys.revokedAt });
    if (!old) return null;
    const created = await createApiKey(tx as unknown as Db, { tenantId: input.tenantId, label: old.label });
    await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${old.id})`);
    return { created, old: { id: old.id, revokedAt: old.revokedAt! } };
  });
}

/** A running subscription to the revocation feed. */
export interface KeyRevocationFeed {
  close(): Promise<void>;
}

/**
 * Calls `onRevoked(keyId)` for every committed revocation or rotation, and `onResync()` whenever the
 * subscription (re)connects: notifications sent while it was down are lost, so the caller must
 * forget everything it cached. Works on postgres.js (its own connection, re-listened after a drop)
 * and on PGlite (the one in-process connection).
 */
export async function subscribeKeyRevocations(
  db: Db,
  handlers: { onRevoked(keyId: string): void; onResync(): void },
): Promise<KeyRevocationFeed> {
  const client = (db as unknown as { $client: PgliteListener | PostgresListener }).$client;
  if (isPglite(client)) {
    // One in-process connection: it cannot drop, so there is nothing to resync after.
    const unlisten = await client.listen(KEY_REVOKED_CHANNEL, (payload) => handlers.onRevoked(payload));
    return { close: () => unlisten() };
  }
  const sub = await client.listen(
    KEY_REVOKED_CHANNEL,
    (payload) => handlers.onRevoked(payload),
    () => handlers.onResync(),
  );
  return { close: () => sub.unlisten() };
}

interface PgliteListener {
  waitReady: Promise<void>;
  listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>>;
}
interface PostgresListener {
  listen(channel: string, cb: (payload: string) => void, onListen: () => void): Promise<{ unlisten(): Promise<void> }>;
}
const isPglite = (c: PgliteListener | PostgresListener): c is PgliteListener => "waitReady" in c;
