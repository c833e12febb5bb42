/**
 * POST /v1/admin/tenants/{tenantId}/keys/{keyId}/rotate: a new secret with the old key's label; the
 * old key stops working now, or after `graceSeconds` so clients can switch over without a gap.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { rotateTenantKey } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { auditKeyOperation } from "./admin-audit.ts";
import { KeyParams, RotateKeyBody, RotatedKeySchema } from "@condense/contract";

export const rotateKeyRoute = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenantId}/keys/{keyId}/rotate",
  operationId: "adminRotateApiKey",
  tags: ["admin"],
  summary: "Rotate an API key (new secret shown once; the old key revoked now or after a grace period)",
  security: [{ AdminKey: [] }],
  request: { params: KeyParams, body: { required: false, content: { "application/json": { schema: RotateKeyBody } } } },
  responses: {
    201: { description: "Rotated", content: { "application/json": { schema: RotatedKeySchema } } },
    ...errorResponses(415),
  },
});

export function registerRotateKey(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(rotateKeyRoute, async (c) => {
    const { tenantId, keyId } = c.req.valid("param");
    const graceSeconds = c.req.valid("json")?.graceSeconds ?? 0;
    const r = await rotateTenantKey(deps.db, { tenantId, keyId, graceSeconds });
    if (!r)
      throw new ApiError(
        "not_found",
        `tenant ${tenantId} has no active key ${keyId} (a revoked or already rotated key cannot be rotated)`,
      );
    deps.forgetKey?.(keyId);
    c.header("Cache-Control", "no-store");
    auditKeyOperation(c, deps.adminKey, {
      action: "api_key.rotate",
      tenantId,
      keyId,
      newKeyId: r.created.id,
      graceSeconds,
      oldKeyRevokedAt: r.old.revokedAt.toISOString(),
    });
    return c.json(
      {
        key: r.created.key,
        id: r.created.id,
        tenantId: r.created.tenantId,
        prefix: r.created.prefix,
        label: r.created.label,
        replaced: { id: r.old.id, revokedAt: r.old.revokedAt.toISOString() },
      },
      201,
    );
  });
}
