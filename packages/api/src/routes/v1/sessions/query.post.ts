/**
 * POST /v1/sessions/{sessionId}/query: context_tree_query (CAP-QUERY). Resolves tN refs, raw ids (every
 * occurrence of a reused id, dedup aliases included) and occurrence keys to full records. Each body is
 * served one page at a time from `offset` (core's query-page.ts); a cut page names the call and the
 * `nextOffset` that return the next one. The text is core's query formatting; every hit is logged in
 * recoveries.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  QUERY_BLOCK_SEPARATOR,
  QUERY_STORED_UNAVAILABLE,
  bodyPage,
  formatQueryBlock,
  formatQueryNotFound,
  pageOfWindow,
  pageWindowChars,
  type BodyPage,
  type PageLimits,
  type ToolCallRecord,
} from "@condense/core";
import {
  getSession,
  lookupRecordsForQuery,
  readBodyWindow,
  recordRecovery,
  type Db,
  type RecoveredHit,
  type RecoveryAnswer,
} from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";
import { QueryBody, QueryResponse } from "@condense/contract";

export const queryPostRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{sessionId}/query",
  operationId: "queryContextTree",
  tags: ["sessions"],
  summary: "context_tree_query: recover originals by tN, raw id or occurrence key",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, body: { required: true, content: { "application/json": { schema: QueryBody } } } },
  responses: {
    200: {
      description: "Formatted text plus structured hits",
      content: { "application/json": { schema: QueryResponse } },
    },
    ...errorResponses(413, 415),
  },
});

/** lookupRecordsForQuery restores stored bodies into resultText; an unrestorable one leaves "". */
function bodyOf(r: ToolCallRecord): string {
  if (!r.stored || r.resultText !== "") return r.resultText;
  return r.stored.preview || QUERY_STORED_UNAVAILABLE;
}

/** The page at `offset`: from the record's body, or, for a body kept in parts, from just the parts it covers. */
async function pageOf(
  db: Db,
  key: { tenantId: string; sessionId: string },
  h: RecoveredHit,
  offset: number,
  limits: PageLimits,
): Promise<BodyPage> {
  if (!h.parts) return bodyPage(bodyOf(h.record), offset, limits);
  const total = h.parts.chars;
  const from = Math.min(offset, total);
  const window = await readBodyWindow(db, key, h.parts.occurrenceKey, from, pageWindowChars(limits));
  return pageOfWindow(window, from, total, limits);
}

export function registerQueryPost(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(queryPostRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const { toolCallIds, offset, limit, maxBytes } = c.req.valid("json");
    const limits = { maxLines: limit, maxBytes };
    if (!(await getSession(deps.db, { tenantId, sessionId })))
      throw new ApiError("not_found", `session ${sessionId} not found`);

    const answers = await lookupRecordsForQuery(deps.db, { tenantId, sessionId, inputs: toolCallIds });
    const byInput = new Map<string, RecoveryAnswer>(answers.map((a) => [a.input, a]));
    const blocks: string[] = [];
    const hits = [];
    const notFound: string[] = [];
    for (const input of toolCallIds) {
      const found = byInput.get(input)?.hits ?? [];
      if (found.length === 0) {
        blocks.push(formatQueryNotFound(input));
        notFound.push(input);
        continue;
      }
      for (const h of found) {
        const page = await pageOf(deps.db, { tenantId, sessionId }, h, offset, limits);
        blocks.push(formatQueryBlock({ label: h.label, legacy: h.legacy, record: h.record }, page));
        const r = h.record;
        hits.push({
          input,
          label: h.label,
          key: r.key,
          ...(h.ref ? { shortRef: h.ref } : {}),
          toolName: r.toolName,
          args: r.args,
          isError: r.isError,
          turnIndex: r.turnIndex,
          ...(r.resultTimestamp !== undefined ? { resultTimestamp: r.resultTimestamp } : {}),
          legacy: h.legacy,
          resultText: page.text,
          stored: Boolean(r.stored),
          offset: page.offset,
          nextOffset: page.next,
          totalChars: page.total,
        });
      }
    }
    if (hits.length > 0) {
      await recordRecovery(deps.db, {
        tenantId,
        sessionId,
        hits: hits.map((h) => ({ query: h.input, toolName: h.toolName, key: h.key, ref: h.shortRef ?? null })),
      });
      deps.metrics.recoveries.inc(hits.length);
    }
    return c.json({ text: blocks.join(QUERY_BLOCK_SEPARATOR), hits, notFound }, 200);
  });
}
