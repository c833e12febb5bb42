/**
 * GET /healthz (the process is up) and GET /readyz (it can serve: the database and the queue answer
 * within a deadline). Neither needs a key, so orchestrators can probe them.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { pingDb } from "@condense/db";
import type { AppEnv } from "../../app-env.ts";
import type { RouteDeps } from "../route-deps.ts";

const Check = z.object({
  ok: z.boolean().describe("Whether the dependency answered within the deadline (2 s)."),
  ms: z.number().describe("How long the probe took, in milliseconds."),
  error: z.string().optional().describe("Why the probe failed (absent when ok)."),
});
const Ready = z
  .object({
    status: z.enum(["ready", "not_ready"]).describe("ready when every check is ok."),
    checks: z
      .object({
        database: Check.describe("The database (a trivial query)."),
        queue: Check.describe("The flush queue (its depth)."),
      })
      .describe("One probe per dependency."),
  })
  .openapi("Readiness");

export const healthzRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "healthz",
  tags: ["system"],
  summary: "Liveness",
  security: [],
  responses: {
    200: {
      description: "Alive",
      content: {
        "application/json": {
          schema: z.object({ status: z.literal("ok").describe("Always ok while the process serves requests.") }),
        },
      },
    },
  },
});

export const readyzRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  tags: ["system"],
  summary: "Readiness: database and queue",
  security: [],
  responses: {
    200: { description: "Ready", content: { "application/json": { schema: Ready } } },
    503: { description: "A dependency is down", content: { "application/json": { schema: Ready } } },
  },
});

const DEADLINE_MS = 2_000;

async function timed(probe: () => Promise<void>) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS}ms`)), DEADLINE_MS);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      ok: false,
      ms: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
    };
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(healthzRoute, (c) => c.json({ status: "ok" as const }, 200));
  app.openapi(readyzRoute, async (c) => {
    const [database, queue] = await Promise.all([timed(() => pingDb(deps.db)), timed(() => deps.queue.ping())]);
    const ok = database.ok && queue.ok && !deps.hub.closing.aborted;
    return c.json(
      { status: ok ? ("ready" as const) : ("not_ready" as const), checks: { database, queue } },
      ok ? 200 : 503,
    );
  });
}
