/**
 * POST /v1/sessions/{sessionId}/diagnostics and GET of the same path: the client's render
 * diagnostics (orphan sweeps, unresolved or overlapping ranges, range-id mismatches, malformed
 * messages) reach the service, stored once per (session, kind, dedup key), so session status, fleet
 * status and the Grafana panels see every kind. Both answer the session's counts per kind, which is
 * how the client's footer learns of the worker's own `backfill-empty` reports.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { diagnosticCounts, ensureSession, getSession, recordDiagnostics } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { DiagnosticsBody, DiagnosticsResponse } from "@condense/contract";

export const diagnosticsPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/diagnostics",
  operationId: "postDiagnostics",
  tags: ["sessions"],
  summary: "Report render diagnostics (stored once per kind and key)",
  security: [{ Bearer: [] }],
  request: {
    params: SessionParams,
    body: { required: true, content: { "application/json": { schema: DiagnosticsBody } } },
  },
  responses: {
    200: {
      description: "Stored; the session's counts per kind",
      content: { "application/json": { schema: DiagnosticsResponse } },
    },
    ...errorResponses(413, 415),
  },
});

export const diagnosticsGetRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{sessionId}/diagnostics",
  operationId: "getDiagnosticCounts",
  tags: ["sessions"],
  summary: "The session's diagnostic counts per kind",
  security: [{ Bearer: [] }],
  request: { params: SessionParams },
  responses: {
    200: { description: "Counts per kind", content: { "application/json": { schema: DiagnosticsResponse } } },
    ...errorResponses(),
  },
});

export function registerDiagnostics(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(diagnosticsPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const { diagnostics } = c.req.valid("json");
    await ensureSession(deps.db, { tenantId, sessionId });
    const before = await diagnosticCounts(deps.db, { tenantId, sessionId });
    const accepted = await recordDiagnostics(deps.db, { tenantId, sessionId, reports: diagnostics });
    const counts = await diagnosticCounts(deps.db, { tenantId, sessionId });
    // Only what this request newly stored counts (a repeated kind and key is ignored by the store).
    if (accepted > 0) {
      for (const [kind, n] of Object.entries(counts)) {
        const added = n - (before[kind] ?? 0);
        if (added > 0) deps.metrics.renderDiagnostics.inc({ kind }, added);
      }
    }
    return c.json({ accepted, counts }, 200);
  });
  app.openapi(diagnosticsGetRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    if (!(await getSession(deps.db, { tenantId, sessionId })))
      throw new ApiError("not_found", `session ${sessionId} not found`);
    return c.json({ accepted: 0, counts: await diagnosticCounts(deps.db, { tenantId, sessionId }) }, 200);
  });
}
