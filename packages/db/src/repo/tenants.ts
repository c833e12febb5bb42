/** Tenants and API keys. A key is `ck_<43 base64url chars>`; only its sha256 is stored. */
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../client.ts";
import { apiKeys, tenants } from "../schema/index.ts";

export const API_KEY_PREFIX = "ck_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export interface Tenant { id: string; name: string; createdAt: Date; disabledAt: Date | null }

/** Idempotent: an existing tenant is returned unchanged. */
export async function ensureTenant(db: Db, input: { id: string; name?: string }): Promise<Tenant> {
  await db.insert(tenants).values({ id: input.id, name: input.name ?? input.id }).onConflictDoNothing();
  const [row] = await db.select().from(tenants).where(eq(tenants.id, input.id));
  if (!row) throw new Error(`tenant ${input.id} vanished after insert`);
  return row;
}

export async function getTenant(db: Db, tenantId: string): Promise<Tenant | null> {
  const [row] = await db.select().from(tenants).where(eq(tenants.id, tenantId));
  return row ?? null;
}

export interface CreatedApiKey { id: string; tenantId: string; prefix: string; label: string; /** Shown once; not stored. */ key: string }

export async function createApiKey(db: Db, input: { tenantId: string; label?: string; key?: string }): Promise<CreatedApiKey> {
  const key = input.key ?? API_KEY_PREFIX + randomBytes(32).toString("base64url");
  const prefix = key.slice(0, API_KEY_PREFIX.length + 6);
  const [row] = await db
    .insert(apiKeys)
    .values({ tenantId: input.tenantId, keyHash: hashApiKey(key), prefix, label: input.label ?? "" })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("api key insert returned no row");
  return { id: row.id, tenantId: input.tenantId, prefix, label: input.label ?? "", key };
}

export interface ApiKeyPrincipal { tenantId: string; keyId: string }

/** The tenant a presented key belongs to; null for unknown or revoked keys and disabled tenants. */
export async function authenticateApiKey(db: Db, key: string): Promise<ApiKeyPrincipal | null> {
  const [row] = await db
    .select({ keyId: apiKeys.id, tenantId: apiKeys.tenantId })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt), isNull(tenants.disabledAt)));
  return row ?? null;
}

export interface ApiKeyInfo { id: string; prefix: string; label: string; createdAt: Date; revokedAt: Date | null }

export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyInfo[]> {
  return db
    .select({ id: apiKeys.id, prefix: apiKeys.prefix, label: apiKeys.label, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(asc(apiKeys.createdAt));
}

/** Returns false when the key does not exist for this tenant (or is already revoked). */
export async function revokeApiKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
