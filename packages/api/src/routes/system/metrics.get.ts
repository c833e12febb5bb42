/** GET /metrics: Prometheus exposition of the API's own registry. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../app-env.ts";
import type { RouteDeps } from "../route-deps.ts";

export function registerMetrics(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.get("/metrics", async (c) => {
    c.set("routeName", "/metrics");
    const body = await deps.metrics.registry.metrics();
    return c.body(body, 200, { "Content-Type": deps.metrics.registry.contentType });
  });
}
