/**
 * POST /v1/sessions/{sessionId}/captures: store finished tool calls. Answers only after the insert has
 * committed, so an acknowledged capture is never lost. Idempotent: a retried POST (same capture id,
 * same occurrence keys) stores nothing new and reports its calls as duplicates. The session is created
 * on first capture, inside the caller's tenant only.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { insertCaptures } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "../../common.schema.ts";
import type { RouteDeps } from "../../route-deps.ts";
import { CapturesBody, CapturesResponse } from "./captures.schema.ts";

export const capturesPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/captures",
  operationId: "postCaptures",
  tags: ["sessions"],
  summary: "Store captured tool calls (acknowledged after commit; idempotent)",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, body: { required: true, content: { "application/json": { schema: CapturesBody } } } },
  responses: {
    200: { description: "Stored (or already stored)", content: { "application/json": { schema: CapturesResponse } } },
    ...errorResponses(413, 415),
  },
});

const MiB = 1024 * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(2)} MiB`;

/** The per-result limit applies to each call's result text and, separately, to its arguments. */
function assertResultSizes(body: CapturesBody, maxResultBytes: number): void {
  body.batches.forEach((batch, b) =>
    batch.toolCalls.forEach((call, i) => {
      const result = Buffer.byteLength(call.resultText, "utf8");
      if (result > maxResultBytes) {
        throw new ApiError("payload_too_large", `batches.${b}.toolCalls.${i}.resultText is ${mib(result)}; the per-result limit is ${mib(maxResultBytes)}`);
      }
      const args = Buffer.byteLength(JSON.stringify(call.args), "utf8");
      if (args > maxResultBytes) {
        throw new ApiError("payload_too_large", `batches.${b}.toolCalls.${i}.args is ${mib(args)}; the per-result limit is ${mib(maxResultBytes)}`);
      }
    }),
  );
}

export function registerCapturesPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(capturesPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const body = c.req.valid("json");
    assertResultSizes(body, deps.limits.maxResultBytes);
    const result = await insertCaptures(deps.db, { tenantId, sessionId, captureId: body.captureId, batches: body.batches });
    deps.metrics.capturesIngested.inc(result.accepted);
    return c.json({ captureId: body.captureId, accepted: result.accepted, duplicates: result.duplicate, maxSeq: result.maxSeq }, 200);
  });
}
