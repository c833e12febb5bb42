/** POST /v1/admin/tenants: create a tenant (admin key). An existing id answers 409. */
import { randomBytes } from "node:crypto";
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { ensureTenant, getTenant } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { CreateTenantBody, TenantSchema } from "@condense/contract";

export const createTenantRoute = createRoute({
  method: "post",
  path: "/v1/admin/tenants",
  operationId: "adminCreateTenant",
  tags: ["admin"],
  summary: "Create a tenant",
  security: [{ AdminKey: [] }],
  request: { body: { required: true, content: { "application/json": { schema: CreateTenantBody } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: TenantSchema } } },
    ...errorResponses(409, 415),
  },
});

export function registerCreateTenant(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(createTenantRoute, async (c) => {
    const body = c.req.valid("json");
    const id = body.id ?? `t_${randomBytes(8).toString("hex")}`;
    if (await getTenant(deps.db, id)) throw new ApiError("conflict", `tenant ${id} already exists`);
    const t = await ensureTenant(deps.db, { id, name: body.name });
    // A concurrent create with the same id wins the insert; ours then reads their row back.
    if (t.name !== body.name) throw new ApiError("conflict", `tenant ${id} already exists`);
    c.get("log").info({ tenantId: t.id }, "tenant created");
    return c.json({ id: t.id, name: t.name, createdAt: t.createdAt.toISOString() }, 201);
  });
}
