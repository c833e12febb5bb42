/**
 * POST /v1/sessions/{sessionId}/captures: store finished tool calls. Answers only after the insert has
 * committed, so an acknowledged capture is never lost. Idempotent: a retried POST (same capture id,
 * same occurrence keys) stores nothing new and reports its calls as duplicates. The session is created
 * on first capture, inside the caller's tenant only. A result too large to travel inline comes as a
 * `body` reference to parts uploaded before (bodies.post.ts): it is verified, stored and indexed at
 * once (a tN and a stored stub without waiting for a flush), so no output is ever refused for its size.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { createHash } from "node:crypto";
import { contentHash, normalizeSettings, occKey, storedPreview } from "@condense/core";
import { assembleBody, getSession, insertCaptures, type Db, type OutOfLineBody } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { CapturesBody, CapturesResponse } from "@condense/contract";

export const capturesPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/captures",
  operationId: "postCaptures",
  tags: ["sessions"],
  summary: "Store captured tool calls (acknowledged after commit; idempotent)",
  security: [{ Bearer: [] }],
  request: {
    params: SessionParams,
    body: { required: true, content: { "application/json": { schema: CapturesBody } } },
  },
  responses: {
    200: { description: "Stored (or already stored)", content: { "application/json": { schema: CapturesResponse } } },
    ...errorResponses(409, 413, 415),
  },
});

const MiB = 1024 * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(2)} MiB`;

/**
 * Every out-of-line body the POST refers to, read back from its parts and checked against the
 * reference (count, length, SHA-256), then measured, previewed and hashed by the service. A body
 * that does not check out refuses the whole POST (409 body_incomplete): nothing is half-stored, and
 * the client uploads the parts again.
 */
async function verifyBodies(
  db: Db,
  key: { tenantId: string; sessionId: string },
  body: CapturesBody,
): Promise<Map<string, OutOfLineBody>> {
  const out = new Map<string, OutOfLineBody>();
  const refs = body.batches
    .flatMap((b, bi) => b.toolCalls.map((c, ci) => ({ c, where: `batches.${bi}.toolCalls.${ci}` })))
    .filter((x) => x.c.body);
  if (refs.length === 0) return out;
  const session = await getSession(db, key);
  const previewBytes = normalizeSettings(session?.settings ?? {}).spillPreviewBytes;
  for (const { c, where } of refs) {
    const ref = c.body!;
    const k = occKey(c.toolCallId, c.resultTimestamp);
    const got = await assembleBody(db, key, k, ref.parts);
    if (!got.ok)
      throw new ApiError(
        "body_incomplete",
        `${where}.body: ${got.reason} for ${k}; upload every part with POST /v1/sessions/${key.sessionId}/bodies, then repeat this POST`,
      );
    const bytes = Buffer.from(got.text, "utf8");
    const sha = createHash("sha256").update(bytes).digest("hex");
    if (got.text.length !== ref.chars || sha !== ref.sha256) {
      throw new ApiError(
        "body_incomplete",
        `${where}.body: the uploaded parts of ${k} are ${got.text.length} characters with sha256 ${sha}, the capture says ${ref.chars} and ${ref.sha256}; upload the parts again`,
      );
    }
    out.set(k, {
      parts: ref.parts,
      chars: ref.chars,
      bytes: bytes.length,
      preview: storedPreview(got.text, previewBytes),
      contentHash: contentHash(c.toolName, got.text),
    });
  }
  return out;
}

/** The per-result limit applies to each call's result text and, separately, to its arguments. */
function assertResultSizes(body: CapturesBody, maxResultBytes: number): void {
  body.batches.forEach((batch, b) => {
    batch.toolCalls.forEach((call, i) => {
      const result = Buffer.byteLength(call.resultText, "utf8");
      if (result > maxResultBytes) {
        throw new ApiError(
          "payload_too_large",
          `batches.${b}.toolCalls.${i}.resultText is ${mib(result)}; the per-result limit is ${mib(maxResultBytes)}`,
        );
      }
      const args = Buffer.byteLength(JSON.stringify(call.args), "utf8");
      if (args > maxResultBytes) {
        throw new ApiError(
          "payload_too_large",
          `batches.${b}.toolCalls.${i}.args is ${mib(args)}; the per-result limit is ${mib(maxResultBytes)}`,
        );
      }
    });
  });
}

export function registerCapturesPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(capturesPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const body = c.req.valid("json");
    assertResultSizes(body, deps.limits.maxResultBytes);
    const outOfLine = await verifyBodies(deps.db, { tenantId, sessionId }, body);
    const batches = body.batches.map((b) => ({ ...b, toolCalls: b.toolCalls.map(({ body: _ref, ...call }) => call) }));
    const result = await insertCaptures(deps.db, {
      tenantId,
      sessionId,
      captureId: body.captureId,
      batches,
      ...(outOfLine.size > 0 ? { outOfLine } : {}),
    });
    deps.metrics.capturesIngested.inc(result.accepted);
    return c.json(
      { captureId: body.captureId, accepted: result.accepted, duplicates: result.duplicate, maxSeq: result.maxSeq },
      200,
    );
  });
}
