/**
 * PUT /v1/sessions/{sessionId}/summarizer: hand the service the model (and its key) the session's
 * agent summarizes with. Kept in memory only; a restart forgets it, and the next flush that expects
 * it answers 409 `summarizer_not_handed_off` so the agent hands it off again. The session need not
 * exist yet: an agent hands its model off at start, before its first capture.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { SummarizerHandOffAccepted, SummarizerHandOffBody } from "@condense/contract";

export const summarizerPutRoute = createRoute({
  method: "put",
  path: "/v1/sessions/{sessionId}/summarizer",
  operationId: "putSessionSummarizer",
  tags: ["sessions"],
  summary: "Hand off the model (and key) the session's agent summarizes with; kept in memory only",
  description:
    "Replaces any earlier hand-off of the session and resets its outage state. Answers 409 when this service takes no handed-off models (a fleet summarizes with its operator's models).",
  security: [{ Bearer: [] }],
  request: {
    params: SessionParams,
    body: { required: true, content: { "application/json": { schema: SummarizerHandOffBody } } },
  },
  responses: {
    200: { description: "Stored in memory", content: { "application/json": { schema: SummarizerHandOffAccepted } } },
    ...errorResponses(409, 413, 415),
  },
});

export function registerSummarizerPut(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(summarizerPutRoute, (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    if (!deps.summarizerHandOffs) {
      throw new ApiError(
        "conflict",
        "this service takes no handed-off models: it summarizes with the models its operator configured (set summarizerModel to one of them)",
      );
    }
    const body = c.req.valid("json");
    deps.summarizerHandOffs.put(tenantId, sessionId, body);
    const label = (m: { provider: string; id: string }) => `${m.provider}/${m.id}`;
    return c.json(
      { primary: label(body.primary), fallback: body.fallback ? label(body.fallback) : null, notices: body.notices },
      200,
    );
  });
}
