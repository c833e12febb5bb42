/**
 * Tenant authentication: `Authorization: Bearer ck_…` -> sha256 -> one indexed lookup. Positive
 * answers are cached briefly (keyed by the hash, never the plaintext) so the hot ingest path does
 * not pay a database round trip per request; a revoked key therefore stops working within `ttlMs`.
 */
import type { MiddlewareHandler } from "hono";
import { authenticateApiKey, hashApiKey, type Db } from "@condense/db";
import type { AppEnv, AuthedTenant } from "../app-env.ts";
import { ApiError } from "../errors/codes.ts";
import { API_KEY_SHAPE, bearerToken } from "./api-key.ts";

export class TenantKeyCache {
  private readonly cache = new Map<string, { tenant: AuthedTenant; until: number }>();

  constructor(private readonly db: Db, private readonly ttlMs = 30_000, private readonly now: () => number = Date.now) {}

  async lookup(token: string): Promise<AuthedTenant | null> {
    const hash = hashApiKey(token);
    const hit = this.cache.get(hash);
    if (hit && hit.until > this.now()) return hit.tenant;
    const principal = await authenticateApiKey(this.db, token);
    if (!principal) {
      this.cache.delete(hash);
      return null;
    }
    const tenant = { tenantId: principal.tenantId, keyId: principal.keyId };
    if (this.cache.size > 5_000) this.cache.clear();
    this.cache.set(hash, { tenant, until: this.now() + this.ttlMs });
    return tenant;
  }
}

const unauthorized = () =>
  new ApiError("unauthorized", "a valid API key is required: Authorization: Bearer <key>", { headers: { "WWW-Authenticate": 'Bearer realm="condense"' } });

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
