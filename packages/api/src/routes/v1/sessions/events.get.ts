/**
 * GET /v1/sessions/{sessionId}/events: a Server-Sent Events stream that announces each new session
 * version (`event: version`, `id: <version>`, data `{"sessionId","version"}`), so a client pulls the
 * state delta only when there is one. Comment heartbeats keep proxies from closing an idle stream.
 * The first event carries the current version when it is newer than `since` (or Last-Event-ID).
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { getSession } from "@condense/db";
import type { AppEnv } from "../../../app-env.ts";
import { tenantOf } from "../../../auth/tenant-auth.ts";
import { ApiError } from "../../../errors/codes.ts";
import { errorResponses } from "../../../errors/schema.ts";
import { SessionParams } from "@condense/contract";
import type { RouteDeps } from "../../route-deps.ts";

const EventsQuery = z.object({
  since: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({
      param: { name: "since", in: "query" },
      description: "The version the client has; only newer versions are announced.",
    }),
});

export const eventsGetRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{sessionId}/events",
  operationId: "streamSessionEvents",
  tags: ["sessions"],
  summary: "SSE stream announcing new session versions",
  security: [{ Bearer: [] }],
  request: { params: SessionParams, query: EventsQuery },
  responses: {
    200: {
      description: "text/event-stream of `version` events",
      content: { "text/event-stream": { schema: z.string() } },
    },
    ...errorResponses(),
  },
});

export function registerEventsGet(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(eventsGetRoute, async (c) => {
    const { tenantId } = tenantOf(c);
    const { sessionId } = c.req.valid("param");
    c.set("sessionId", sessionId);
    const lastEventId = Number(c.req.header("last-event-id"));
    const since =
      c.req.valid("query").since ?? (Number.isSafeInteger(lastEventId) && lastEventId >= 0 ? lastEventId : -1);
    const session = await getSession(deps.db, { tenantId, sessionId });
    if (!session) throw new ApiError("not_found", `session ${sessionId} not found`);
    if (deps.hub.closing.aborted) throw new ApiError("unavailable", "the server is shutting down");

    return streamSSE(c, async (stream) => {
      let latest = session.version;
      let sent = since;
      let wake: (() => void) | undefined;
      const poke = () => wake?.();
      const unsubscribe = deps.hub.subscribe(tenantId, sessionId, latest, (v) => {
        latest = Math.max(latest, v);
        poke();
      });
      deps.hub.closing.addEventListener("abort", poke);
      stream.onAbort(poke);
      deps.metrics.sseClients.inc();
      try {
        while (!stream.aborted && !stream.closed && !deps.hub.closing.aborted) {
          if (latest > sent) {
            sent = latest;
            await stream.writeSSE({
              event: "version",
              id: String(latest),
              data: JSON.stringify({ sessionId, version: latest }),
            });
            continue;
          }
          let timer: NodeJS.Timeout | undefined;
          const woke = await new Promise<boolean>((resolve) => {
            wake = () => resolve(true);
            timer = setTimeout(() => resolve(false), deps.sse.heartbeatMs);
          });
          clearTimeout(timer);
          wake = undefined;
          if (!woke && !stream.aborted && !stream.closed) await stream.write(": heartbeat\n\n");
        }
      } finally {
        unsubscribe();
        deps.hub.closing.removeEventListener("abort", poke);
        deps.metrics.sseClients.dec();
      }
    }) as never;
  });
}
