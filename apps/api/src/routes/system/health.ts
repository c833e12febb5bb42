/**
 * GET /healthz (the process is up) and GET /readyz (it can serve: the database and the queue answer
 * within a deadline). Neither needs a key, so orchestrators can probe them.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { pingDb } from "@condense/db";
import type { AppEnv } from "../../app-env.ts";
import type { RouteDeps } from "../route-deps.ts";

const Check = z.object({ ok: z.boolean(), ms: z.number(), error: z.string().optional() });
const Ready = z.object({ status: z.enum(["ready", "not_ready"]), checks: z.object({ database: Check, queue: Check }) }).openapi("Readiness");

export const healthzRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "healthz",
  tags: ["system"],
  summary: "Liveness",
  responses: { 200: { description: "Alive", content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } } } },
});

export const readyzRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  tags: ["system"],
  summary: "Readiness: database and queue",
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
    await Promise.race([probe(), new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS}ms`)), DEADLINE_MS); })]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: OpenAPIHono<AppEnv>, deps: RouteDeps): void {
  app.openapi(healthzRoute, (c) => c.json({ status: "ok" as const }, 200));
  app.openapi(readyzRoute, async (c) => {
    const [database, queue] = await Promise.all([timed(() => pingDb(deps.db)), timed(() => deps.queue.ping())]);
    const ok = database.ok && queue.ok && !deps.hub.closing.aborted;
    return c.json({ status: ok ? ("ready" as const) : ("not_ready" as const), checks: { database, queue } }, ok ? 200 : 503);
  });
}
