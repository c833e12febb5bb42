/**
 * Per-request context and the wide event: every request gets a request id (the caller's
 * `x-request-id` when it is sane), a child logger, and exactly one log line when it ends with
 * tenant, session, route, status, duration and the error code if any.
 */
import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Logger } from "pino";
import type { AppEnv } from "../app-env.ts";
import type { ApiMetrics } from "./http-metrics.ts";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(log: Logger, metrics: ApiMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header("x-request-id");
    const requestId = given && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    c.set("requestId", requestId);
    c.set("log", log.child({ requestId }));
    c.header("x-request-id", requestId);
    try {
      await next();
    } finally {
      const status = c.res.status;
      // routePath gives the matched pattern ("/v1/sessions/:sessionId/state"), keeping label cardinality bounded.
      const route = c.get("routeName") ?? (status === 404 && !c.get("errorCode") ? "unmatched" : safeRoutePath(c));
      const ms = performance.now() - started;
      metrics.requests.inc({ method: c.req.method, route, status: String(status) });
      metrics.duration.observe({ method: c.req.method, route }, ms / 1000);
      const tenant = c.get("tenant");
      const event = {
        requestId,
        method: c.req.method,
        route,
        path: c.req.path,
        status,
        durationMs: Math.round(ms * 100) / 100,
        tenant: tenant?.tenantId,
        session: c.get("sessionId"),
        errorCode: c.get("errorCode"),
      };
      if (status >= 500) log.error(event, "request");
      else log.info(event, "request");
    }
  };
}

function safeRoutePath(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  try {
    const p = routePath(c, -1);
    return p === "/*" ? "unmatched" : p;
  } catch {
    return "unmatched";
  }
}
