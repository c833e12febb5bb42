/** POST /v1/admin/tenants/{tenantId}/keys/{keyId}/revoke: the key gets 401 from the next request on. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { revokeTenantKey } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { auditKeyOperation } from "./admin-audit.ts";
import { KeyParams, RevokedKeySchema } from "@condense/contract";

export const revokeKeyRoute = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenantId}/keys/{keyId}/revoke",
  operationId: "adminRevokeApiKey",
  tags: ["admin"],
  summary: "Revoke an API key (effective immediately)",
  description:
    "A key in a rotation grace period is ended now as well. Revoking an unknown or already revoked key answers 404.",
  security: [{ AdminKey: [] }],
  request: { params: KeyParams },
  responses: {
    200: { description: "Revoked", content: { "application/json": { schema: RevokedKeySchema } } },
    ...errorResponses(),
  },
});

export function registerRevokeKey(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(revokeKeyRoute, async (c) => {
    const { tenantId, keyId } = c.req.valid("param");
    const r = await revokeTenantKey(deps.db, { tenantId, keyId });
    if (!r) throw new ApiError("not_found", `tenant ${tenantId} has no active key ${keyId}`);
    // This process's cache first: the database's notification reaches it a moment later.
    deps.forgetKey?.(keyId);
    auditKeyOperation(c, deps.adminKey, { action: "api_key.revoke", tenantId, keyId });
    return c.json({ id: r.id, tenantId: r.tenantId, revokedAt: r.revokedAt.toISOString() }, 200);
  });
}
