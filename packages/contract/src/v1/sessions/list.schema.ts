/** GET /v1/sessions: the tenant's sessions, newest activity first, cursor-paginated. */
import { z } from "@hono/zod-openapi";

export const ListSessionsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .openapi({
      param: { name: "limit", in: "query" },
      description: "Sessions per page (1 to 200, default 50).",
      example: 50,
    }),
  cursor: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a cursor returned by a previous page")
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: "The nextCursor of the previous page; absent for the first page.",
    }),
});

export const SessionSummary = z
  .object({
    sessionId: z
      .string()
      .describe("The client-chosen session id.")
      .openapi({ example: "0b6f1c2e-5d4a-4f0e-9b1a-2c3d4e5f6a7b" }),
    version: z
      .number()
      .int()
      .describe("The session's state version (bumped by every committed state change).")
      .openapi({ example: 7 }),
    createdAt: z
      .string()
      .describe("When the session was first seen (ISO 8601).")
      .openapi({ example: "2026-12-01T20:00:00.000Z" }),
    updatedAt: z
      .string()
      .describe("Last capture, flush or state change (ISO 8601).")
      .openapi({ example: "2026-12-01T20:30:00.000Z" }),
    lastFlushAt: z
      .string()
      .nullable()
      .describe("When the last flush committed (ISO 8601); null before the first.")
      .openapi({ example: "2026-12-01T20:29:00.000Z" }),
    pendingCaptures: z.number().int().describe("Captured calls no flush has settled yet.").openapi({ example: 3 }),
  })
  .openapi("SessionSummary");

export const ListSessionsResponse = z
  .object({
    sessions: z.array(SessionSummary).describe("This page's sessions, most recently updated first."),
    nextCursor: z.string().nullable().describe("Pass as ?cursor= for the next page; null on the last page."),
  })
  .openapi("SessionList");
