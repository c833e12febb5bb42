/**
 * POST /v1/sessions/{sessionId}/bodies: store one part of a tool result that is too large to travel
 * inside a capture POST. The client uploads every part, then posts the capture with a `body`
 * reference (parts, characters, sha256) in place of the text; the capture route verifies the parts
 * against it. Idempotent per (occurrence key, part); a different text for a stored part is a 409.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { putBodyPart } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { BodyPartBody, BodyPartResponse } from "@condense/contract";

export const bodiesPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/bodies",
  operationId: "postBodyPart",
  tags: ["sessions"],
  summary: "Upload one part of a large tool result (before the capture that refers to it)",
  security: [{ Bearer: [] }],
  request: {
    params: SessionParams,
    body: { required: true, content: { "application/json": { schema: BodyPartBody } } },
  },
  responses: {
    200: {
      description: "Stored (or already stored with the same text)",
      content: { "application/json": { schema: BodyPartResponse } },
    },
    ...errorResponses(409, 413, 415),
  },
});

export function registerBodiesPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(bodiesPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const { key, part, start, text } = c.req.valid("json");
    const result = await putBodyPart(deps.db, {
      tenantId,
      sessionId,
      occurrenceKey: key,
      part,
      startChar: start,
      text,
    });
    if (result === "conflict") {
      throw new ApiError(
        "conflict",
        `part ${part} of ${key} is already stored with a different text or offset; an occurrence's body never changes`,
      );
    }
    return c.json({ key, part, result }, 200);
  });
}
