/** GET /v1/sessions/{sessionId}/status: the session's condensation status for dashboards and `/condense status`. */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getSessionStatus, listRecentFlushes } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { SessionStatusSchema } from "@condense/contract";

const StatusQuery = z.object({
  flushes: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ param: { name: "flushes", in: "query" }, description: "How many recent flush attempts to list." }),
});

export const statusGetRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{sessionId}/status",
  operationId: "getSessionStatus",
  tags: ["sessions"],
  summary: "Session status: counters, context metrics, diagnostics, reclaim, summarizer cost, last flushes",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, query: StatusQuery },
  responses: {
    200: { description: "Status", content: { "application/json": { schema: SessionStatusSchema } } },
    ...errorResponses(),
  },
});

export function registerStatusGet(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(statusGetRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const { flushes } = c.req.valid("query");
    const key = { tenantId, sessionId };
    const [s, recent] = await Promise.all([getSessionStatus(deps.db, key), listRecentFlushes(deps.db, key, flushes)]);
    if (!s) throw new ApiError("not_found", `session ${sessionId} not found`);
    return c.json(
      {
        sessionId: s.sessionId,
        version: s.version,
        createdAt: s.createdAt.toISOString(),
        updatedAt: s.updatedAt.toISOString(),
        lastCaptureAt: s.lastCaptureAt?.toISOString() ?? null,
        lastFlushAt: s.lastFlushAt?.toISOString() ?? null,
        captures: s.captures,
        records: s.records,
        summaries: s.summaries,
        aliases: s.aliases,
        chains: s.chains,
        reclaim: s.reclaim,
        contextMetrics: s.lastFlush?.metrics ?? null,
        diagnostics: s.diagnostics,
        recoveries: s.recoveries,
        summarizer: s.stats,
        frontier: s.frontier,
        queuedFlushRequests: s.queuedFlushRequests,
        lastFlushes: recent.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
        settings: s.settings,
        cacheEconomics: s.cacheEconomics,
      } as never,
      200,
    );
  });
}
