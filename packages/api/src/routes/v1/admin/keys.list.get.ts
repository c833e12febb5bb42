/** GET /v1/admin/tenants/{tenantId}/keys: every key of a tenant with its status (never a secret). */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getTenant, listTenantKeys } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { auditKeyOperation } from "./admin-audit.ts";
import { ApiKeyList } from "@condense/contract";
import { TenantId } from "@condense/contract";

export const listKeysRoute = createRoute({
  method: "get",
  path: "/v1/admin/tenants/{tenantId}/keys",
  operationId: "adminListApiKeys",
  tags: ["admin"],
  summary: "List a tenant's API keys",
  description:
    "Every key of the tenant, oldest first, with its status. Secrets are never returned (only their prefix).",
  security: [{ AdminKey: [] }],
  request: { params: z.object({ tenantId: TenantId }) },
  responses: {
    200: { description: "The tenant's keys", content: { "application/json": { schema: ApiKeyList } } },
    ...errorResponses(),
  },
});

export function registerListKeys(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(listKeysRoute, async (c) => {
    const { tenantId } = c.req.valid("param");
    if (!(await getTenant(deps.db, tenantId))) throw new ApiError("not_found", `tenant ${tenantId} not found`);
    const keys = await listTenantKeys(deps.db, tenantId);
    auditKeyOperation(c, deps.adminKey, { action: "api_key.list", tenantId, count: keys.length });
    return c.json(
      {
        keys: keys.map((k) => ({
          id: k.id,
          tenantId: k.tenantId,
          prefix: k.prefix,
          label: k.label,
          createdAt: k.createdAt.toISOString(),
          revokedAt: k.revokedAt?.toISOString() ?? null,
          status: k.status,
        })),
      },
      200,
    );
  });
}
