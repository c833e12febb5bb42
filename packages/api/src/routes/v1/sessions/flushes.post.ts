/**
 * POST /v1/sessions/{sessionId}/flushes: record a flush request and enqueue the session's job. The
 * request row is written first, in the same statement that checks the session exists (cursor = the
 * session's highest capture seq right now), then the job carries only that row's id and cursor.
 * Answers 202: the work happens in a worker.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { normalizeSettings } from "@condense/core";
import { FlushRequestConflictError, createFlushRequestForSession } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { FlushAccepted, FlushBody } from "@condense/contract";

export const flushesPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/flushes",
  operationId: "postFlush",
  tags: ["sessions"],
  summary: "Request a flush of the session's pending captures",
  description:
    "The session must exist (it is created by its first capture). A repeated flushId returns the first request.",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, body: { required: true, content: { "application/json": { schema: FlushBody } } } },
  responses: {
    202: { description: "Accepted and enqueued", content: { "application/json": { schema: FlushAccepted } } },
    ...errorResponses(409, 413, 415, 503),
  },
});

export function registerFlushesPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(flushesPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const body = c.req.valid("json");
    if (body.summarizerHandedOff && deps.summarizerHandOffs && !deps.summarizerHandOffs.get(tenantId, sessionId)) {
      throw new ApiError(
        "summarizer_not_handed_off",
        `no summarizer model is handed off for session ${sessionId} (the service restarted?): PUT /v1/sessions/${sessionId}/summarizer, then retry this flush`,
      );
    }
    // Settings sent with the flush become the session's snapshot; without them the request carries the
    // stored ones (one statement checks that the session exists and records the request).
    let request;
    try {
      request = await createFlushRequestForSession(deps.db, {
        tenantId,
        sessionId,
        ...(body.flushId ? { id: body.flushId } : {}),
        trigger: body.trigger,
        metrics: body.metrics ?? {},
        chains: body.chains,
        ...(body.settings ? { settings: normalizeSettings(body.settings) } : {}),
      });
    } catch (err) {
      if (err instanceof FlushRequestConflictError)
        throw new ApiError("conflict", "this flushId is already used by another session");
      throw err;
    }
    if (!request) throw new ApiError("not_found", `session ${sessionId} not found`);
    if (request.status === "queued") {
      try {
        await deps.queue.enqueueFlush({ tenantId, sessionId, flushRequestId: request.id, cursor: request.cursor });
      } catch (err) {
        c.get("log").warn({ err, flushRequestId: request.id }, "enqueue failed; the request row stays queued");
        throw new ApiError(
          "unavailable",
          "the flush was recorded but could not be enqueued; retry with the same flushId",
          { cause: err },
        );
      }
    }
    if (request.created) {
      deps.metrics.flushRequests.inc({ trigger: body.trigger });
      const m = body.metrics as Record<string, unknown> | undefined;
      const write = m?.expectedCacheWriteTokens;
      const saved = m?.expectedCacheReadSavedTokens;
      if (typeof write === "number" && Number.isFinite(write) && write > 0)
        deps.metrics.flushCacheWriteTokens.inc(write);
      if (typeof saved === "number" && Number.isFinite(saved) && saved > 0)
        deps.metrics.flushCacheReadSavedTokens.inc(saved);
    }
    return c.json(
      { flushId: request.id, cursor: request.cursor, trigger: body.trigger, created: request.created },
      202,
    );
  });
}
