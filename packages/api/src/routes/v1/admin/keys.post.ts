/** POST /v1/admin/tenants/{tenantId}/keys: mint an API key for a tenant; the plaintext is returned once. */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { createApiKey, getTenant } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { auditKeyOperation } from "./admin-audit.ts";
import { CreateKeyBody, CreatedKeySchema, TenantId } from "@condense/contract";

export const createKeyRoute = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenantId}/keys",
  operationId: "adminCreateApiKey",
  tags: ["admin"],
  summary: "Mint an API key for a tenant (plaintext shown once)",
  security: [{ AdminKey: [] }],
  request: {
    params: z.object({ tenantId: TenantId }),
    body: { required: true, content: { "application/json": { schema: CreateKeyBody } } },
  },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedKeySchema } } },
    ...errorResponses(415),
  },
});

export function registerCreateKey(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(createKeyRoute, async (c) => {
    const { tenantId } = c.req.valid("param");
    const { label } = c.req.valid("json");
    if (!(await getTenant(deps.db, tenantId))) throw new ApiError("not_found", `tenant ${tenantId} not found`);
    const k = await createApiKey(deps.db, { tenantId, ...(label !== undefined ? { label } : {}) });
    c.header("Cache-Control", "no-store");
    auditKeyOperation(c, deps.adminKey, { action: "api_key.create", tenantId, keyId: k.id, prefix: k.prefix });
    return c.json({ id: k.id, tenantId: k.tenantId, prefix: k.prefix, label: k.label, key: k.key }, 201);
  });
}
