/**
 * POST /v1/sessions/{sessionId}/imports: commit the state another condenser left in a session (its
 * records and refs, summaries, dedup aliases, chains, frontier, stats) as the session's first state.
 * Idempotent per importId; refused with 409 when the session already holds state of its own.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { importSessionState } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { SessionImportBody, SessionImportResult } from "@condense/contract";

export const importsPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/imports",
  operationId: "postSessionImport",
  tags: ["sessions"],
  summary: "Import a session's existing condensation state (pi-condense entries)",
  security: [{ Bearer: [] }],
  request: {
    params: SessionParams,
    body: { required: true, content: { "application/json": { schema: SessionImportBody } } },
  },
  responses: {
    200: {
      description: "Imported (or imported before)",
      content: { "application/json": { schema: SessionImportResult } },
    },
    ...errorResponses(409, 413, 415),
  },
});

export function registerImportsPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(importsPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const body = c.req.valid("json");
    const r = await importSessionState(deps.db, { tenantId, sessionId, ...body });
    if (r.status === "session-has-state") {
      throw new ApiError(
        "conflict",
        `session ${sessionId} already has condensation state (version ${r.version}); an import only seeds an empty session`,
      );
    }
    return c.json({ status: r.status, version: r.version, blockIds: r.blockIds }, 200);
  });
}
