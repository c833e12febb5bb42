/**
 * GET /v1/fleet/status: the caller's fleet at a glance. Flush outcomes, dedup and usage are the
 * tenant's own; queue depth and worker count describe the shared queue. A queue that cannot be read
 * is reported as null rather than failing the whole status.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { fleetStatus } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { errorResponses } from "../../../errors/schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { FleetStatusQuery, FleetStatusSchema } from "@condense/contract";

export const fleetStatusRoute = createRoute({
  method: "get",
  path: "/v1/fleet/status",
  operationId: "getFleetStatus",
  tags: ["fleet"],
  summary: "Queue depth, workers, flush outcomes over the last N minutes, fallback state, dedup hit rate",
  security: [{ Bearer: [] }],
  request: { query: FleetStatusQuery },
  responses: {
    200: { description: "Fleet status", content: { "application/json": { schema: FleetStatusSchema } } },
    ...errorResponses(),
  },
});

export function registerFleetStatus(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(fleetStatusRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const windowMinutes = c.req.valid("query").minutes ?? deps.fleetWindowMinutes;
    const log = c.get("log");
    const [fleet, queue, fallback] = await Promise.all([
      fleetStatus(deps.db, { tenantId, windowMinutes }),
      deps.queue.depth().then(
        (d) => ({ kind: deps.queue.kind, ...d }),
        (err: unknown) => {
          log.warn({ err }, "queue depth unavailable");
          return null;
        },
      ),
      deps.fallbackState
        ? deps.fallbackState().catch((err: unknown) => {
            log.warn({ err }, "fallback state unavailable");
            return null;
          })
        : Promise.resolve(null),
    ]);
    return c.json({ ...fleet, queue, fallback }, 200);
  });
}
