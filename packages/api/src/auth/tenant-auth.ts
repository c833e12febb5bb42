/**
 * Tenant authentication: `Authorization: Bearer ck_…` -> sha256 -> one indexed lookup. Positive
 * answers are cached briefly (keyed by the hash, never the plaintext) so the hot ingest path does
 * not pay a database round trip per request. A revoked key must get 401 at once, so the cache drops
 * a key's entry when it is revoked or rotated (`forgetKey`, called by the admin routes and by the
 * database's revocation feed for changes made elsewhere), drops everything when the feed
 * reconnects, and never keeps an entry past the end of a rotated key's grace period.
 */
import type { MiddlewareHandler } from "hono";
import { authenticateKeyWithDeadline, hashApiKey, type Db } from "@condense/db";
import type { AppEnv, AuthedTenant } from "../app-env.ts";
import { ApiError } from "../errors/codes.ts";
import { API_KEY_SHAPE, bearerToken } from "./api-key.ts";

export class TenantKeyCache {
  private readonly cache = new Map<string, { tenant: AuthedTenant; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  async lookup(token: string): Promise<AuthedTenant | null> {
    const hash = hashApiKey(token);
    const hit = this.cache.get(hash);
    if (hit && hit.until > this.now()) return hit.tenant;
    const principal = await authenticateKeyWithDeadline(this.db, token);
    if (!principal) {
      this.cache.delete(hash);
      return null;
    }
    const tenant = { tenantId: principal.tenantId, keyId: principal.keyId };
    if (this.cache.size > 5_000) this.cache.clear();
    const deadline = principal.validUntil?.getTime() ?? Number.POSITIVE_INFINITY;
    this.cache.set(hash, { tenant, until: Math.min(this.now() + this.ttlMs, deadline) });
    return tenant;
  }

  /** Forget every cached answer for one key id (revoked or rotated). */
  forgetKey(keyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.tenant.keyId === keyId) this.cache.delete(hash);
  }

  /** Forget everything (the revocation feed reconnected and may have missed changes). */
  forgetAll(): void {
    this.cache.clear();
  }
}

const unauthorized = () =>
  new ApiError("unauthorized", "a valid API key is required: Authorization: Bearer <key>", {
    headers: { "WWW-Authenticate": 'Bearer realm="condense"' },
  });

export function tenantAuth(keys: TenantKeyCache): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token || !API_KEY_SHAPE.test(token)) throw unauthorized();
    const tenant = await keys.lookup(token);
    if (!tenant) throw unauthorized();
    c.set("tenant", tenant);
    await next();
  };
}

/** The authenticated tenant; for routes behind tenantAuth. */
export function tenantOf(c: { get(key: "tenant"): AuthedTenant | undefined }): AuthedTenant {
  const t = c.get("tenant");
  if (!t) throw unauthorized();
  return t;
}
