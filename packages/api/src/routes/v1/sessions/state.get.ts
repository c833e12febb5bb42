/** GET /v1/sessions/{sessionId}/state?since=<v>: the StateDelta that core's applyDelta consumes. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { getStateDelta } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { StateDeltaSchema, StateQuery } from "@condense/contract";

export const stateGetRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{sessionId}/state",
  operationId: "getStateDelta",
  tags: ["sessions"],
  summary: "State delta since a version (0 = full snapshot)",
  description: "A `since` beyond the current version returns a full snapshot (fromVersion 0) so the client can resync.",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, query: StateQuery },
  responses: {
    200: { description: "The delta", content: { "application/json": { schema: StateDeltaSchema } } },
    ...errorResponses(),
  },
});

export function registerStateGet(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(stateGetRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const { since } = c.req.valid("query");
    const delta = await getStateDelta(deps.db, { tenantId, sessionId, since });
    if (!delta) throw new ApiError("not_found", `session ${sessionId} not found`);
    return c.json(delta as never, 200);
  });
}
