/** GET /v1/sessions: the tenant's sessions, newest activity first, cursor-paginated. */
import { z } from "@hono/zod-openapi";

export const ListSessionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ param: { name: "limit", in: "query" } }),
  cursor: z.string().max(512).regex(/^[A-Za-z0-9_-]+$/, "must be a cursor returned by a previous page").optional().openapi({ param: { name: "cursor", in: "query" } }),
});

export const SessionSummary = z
  .object({
    sessionId: z.string(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastFlushAt: z.string().nullable(),
    pendingCaptures: z.number().int(),
  })
  .openapi("SessionSummary");

export const ListSessionsResponse = z
  .object({ sessions: z.array(SessionSummary), nextCursor: z.string().nullable() })
  .openapi("SessionList");
