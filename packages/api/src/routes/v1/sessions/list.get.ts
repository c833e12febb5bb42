/** GET /v1/sessions: the caller's sessions, most recently active first, with an opaque cursor. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { InvalidCursorError, listSessions } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { ListSessionsQuery, ListSessionsResponse } from "@condense/contract";

export const listSessionsRoute = createRoute({
  method: "get",
  path: "/v1/sessions",
  operationId: "listSessions",
  tags: ["sessions"],
  summary: "List the tenant's sessions (cursor pagination)",
  security: [{ Bearer: [] }],
  request: { query: ListSessionsQuery },
  responses: {
    200: { description: "A page of sessions", content: { "application/json": { schema: ListSessionsResponse } } },
    ...errorResponses(),
  },
});

export function registerListSessions(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(listSessionsRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { limit, cursor } = c.req.valid("query");
    let page;
    try {
      page = await listSessions(deps.db, tenantId, { limit, cursor: cursor ?? null });
    } catch (err) {
      if (err instanceof InvalidCursorError)
        throw new ApiError("bad_request", "query.cursor: not a cursor returned by a previous page");
      throw err;
    }
    return c.json(
      {
        sessions: page.sessions.map((s) => ({
          sessionId: s.sessionId,
          version: s.version,
          createdAt: s.createdAt.toISOString(),
          updatedAt: s.updatedAt.toISOString(),
          lastFlushAt: s.lastFlushAt?.toISOString() ?? null,
          pendingCaptures: s.pendingCaptures,
        })),
        nextCursor: page.nextCursor,
      },
      200,
    );
  });
}
