/**
 * `newApp(deps)`: the one Hono app the server and the tests share. It wires the request context and
 * wide event, authentication (tenant keys on /v1, the admin key on /v1/admin), per-tenant rate
 * limits, the body-size limit, every route (one file per operation), the OpenAPI document and the
 * single error path.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { getSessionVersions, type Db } from "@condense/db";
import type { Logger } from "pino";
import { ErrorBody } from "@condense/contract";
import type { AppEnv } from "./app-env.ts";
import { adminAuth } from "./auth/admin-auth.ts";
import { TenantKeyCache, tenantAuth } from "./auth/tenant-auth.ts";
import type { ApiEnv } from "./env.ts";
import { ApiError } from "./errors/codes.ts";
import { onError, onNotFound, validationHook } from "./errors/handler.ts";
import { createApiMetrics, type ApiMetrics } from "./observability/http-metrics.ts";
import { createLogger } from "./observability/logger.ts";
import { requestContext } from "./observability/request-context.ts";
import { strictUtf8Json } from "./observability/strict-utf8.ts";
import type { ApiQueue } from "./queue-port.ts";
import { MemoryRateLimiter } from "./ratelimit/memory-rate-limiter.ts";
import { tenantRateLimit } from "./ratelimit/rate-limit-middleware.ts";
import type { RateLimiter } from "./ratelimit/rate-limiter.ts";
import { registerCreateKey } from "./routes/v1/admin/keys.post.ts";
import { registerListKeys } from "./routes/v1/admin/keys.list.get.ts";
import { registerRevokeKey } from "./routes/v1/admin/keys.revoke.post.ts";
import { registerRotateKey } from "./routes/v1/admin/keys.rotate.post.ts";
import { registerCreateTenant } from "./routes/v1/admin/tenants.post.ts";
import { registerFleetStatus } from "./routes/v1/fleet/status.get.ts";
import { registerCapturesPost } from "./routes/v1/sessions/captures.post.ts";
import { registerBodiesPost } from "./routes/v1/sessions/bodies.post.ts";
import { registerDiagnostics } from "./routes/v1/sessions/diagnostics.post.ts";
import { registerEventsGet } from "./routes/v1/sessions/events.get.ts";
import { registerFlushesPost } from "./routes/v1/sessions/flushes.post.ts";
import { registerListSessions } from "./routes/v1/sessions/list.get.ts";
import { registerQueryPost } from "./routes/v1/sessions/query.post.ts";
import { registerStateGet } from "./routes/v1/sessions/state.get.ts";
import { registerStatusGet } from "./routes/v1/sessions/status.get.ts";
import type { FallbackState, RouteDeps, SummarizerHandOffPort } from "./routes/route-deps.ts";
import { registerSummarizerPut } from "./routes/v1/sessions/summarizer.put.ts";
import { registerImportsPost } from "./routes/v1/sessions/imports.post.ts";
import { registerHealth } from "./routes/system/health.ts";
import { registerMetrics } from "./routes/system/metrics.get.ts";
import { registerOpenApi } from "./routes/system/openapi.ts";
import { VersionHub } from "./sse/version-hub.ts";

export interface AppConfig {
  adminKey: string;
  maxRequestBytes: number;
  maxResultBytes: number;
  /** Token bucket per tenant; perSecond 0 disables rate limiting. */
  rateLimit: { perSecond: number; burst: number };
  sseHeartbeatMs: number;
  ssePollMs: number;
  fleetWindowMinutes: number;
  /** How long an authenticated key is trusted without a database lookup. */
  keyCacheTtlMs: number;
}

export const DEFAULT_APP_CONFIG: Readonly<AppConfig> = Object.freeze({
  adminKey: "",
  maxRequestBytes: 8 * 1024 * 1024,
  maxResultBytes: 2 * 1024 * 1024,
  rateLimit: { perSecond: 100, burst: 400 },
  sseHeartbeatMs: 15_000,
  ssePollMs: 1_000,
  fleetWindowMinutes: 15,
  keyCacheTtlMs: 30_000,
});

export function appConfigFromEnv(env: ApiEnv): AppConfig {
  return {
    adminKey: env.adminKey,
    maxRequestBytes: env.maxRequestBytes,
    maxResultBytes: env.maxResultBytes,
    rateLimit: { perSecond: env.rateLimitPerSec, burst: env.rateLimitBurst },
    sseHeartbeatMs: env.sseHeartbeatMs,
    ssePollMs: env.ssePollMs,
    fleetWindowMinutes: env.fleetWindowMinutes,
    keyCacheTtlMs: DEFAULT_APP_CONFIG.keyCacheTtlMs,
  };
}

export interface AppDeps {
  db: Db;
  queue: ApiQueue;
  config?: Partial<AppConfig>;
  logger?: Logger;
  metrics?: ApiMetrics;
  /** Defaults to in-memory buckets from config.rateLimit; pass null to disable. */
  rateLimiter?: RateLimiter | null;
  /** Defaults to a hub that polls the database; the server passes its own so shutdown can close it. */
  hub?: VersionHub;
  fallbackState?: () => Promise<FallbackState>;
  /** The server passes a cache subscribed to the database's revocation feed; otherwise one is made here. */
  keyCache?: TenantKeyCache;
  /** Handed-off summarizer models (in memory; shared with the worker runtime). */
  summarizerHandOffs?: SummarizerHandOffPort;
}

export function newApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const config: AppConfig = {
    ...DEFAULT_APP_CONFIG,
    ...deps.config,
    rateLimit: { ...DEFAULT_APP_CONFIG.rateLimit, ...deps.config?.rateLimit },
  };
  const logger = deps.logger ?? createLogger("silent");
  const metrics = deps.metrics ?? createApiMetrics();
  const hub =
    deps.hub ?? new VersionHub({ readVersions: (keys) => getSessionVersions(deps.db, keys), pollMs: config.ssePollMs });
  const rateLimiter =
    deps.rateLimiter === null || config.rateLimit.perSecond === 0
      ? undefined
      : (deps.rateLimiter ?? new MemoryRateLimiter(config.rateLimit));
  const keys = deps.keyCache ?? new TenantKeyCache(deps.db, config.keyCacheTtlMs);
  const routeDeps: RouteDeps = {
    db: deps.db,
    queue: deps.queue,
    hub,
    metrics,
    limits: { maxRequestBytes: config.maxRequestBytes, maxResultBytes: config.maxResultBytes },
    sse: { heartbeatMs: config.sseHeartbeatMs },
    fleetWindowMinutes: config.fleetWindowMinutes,
    adminKey: config.adminKey,
    forgetKey: (keyId) => keys.forgetKey(keyId),
    ...(deps.fallbackState ? { fallbackState: deps.fallbackState } : {}),
    ...(deps.summarizerHandOffs ? { summarizerHandOffs: deps.summarizerHandOffs } : {}),
  };

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError);
  app.notFound(onNotFound);
  app.use("*", requestContext(logger, metrics));

  const tenantGate = tenantAuth(keys);
  const adminGate = adminAuth(config.adminKey);
  const limit = tenantRateLimit(rateLimiter);
  app.use("/v1/*", async (c, next) => {
    if (c.req.path === "/v1/admin" || c.req.path.startsWith("/v1/admin/")) return adminGate(c, next);
    return tenantGate(c, async () => {
      await limit(c, next);
    });
  });
  // The declared length is checked before reading; a chunked body is counted as it streams.
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: config.maxRequestBytes,
      onError: () => {
        throw new ApiError(
          "payload_too_large",
          `the request body exceeds the limit of ${config.maxRequestBytes} bytes`,
        );
      },
    }),
  );

  app.use("/v1/*", strictUtf8Json);

  app.openAPIRegistry.register("Error", ErrorBody);
  registerCapturesPost(app, routeDeps);
  registerBodiesPost(app, routeDeps);
  registerDiagnostics(app, routeDeps);
  registerFlushesPost(app, routeDeps);
  registerStateGet(app, routeDeps);
  registerEventsGet(app, routeDeps);
  registerQueryPost(app, routeDeps);
  registerStatusGet(app, routeDeps);
  registerSummarizerPut(app, routeDeps);
  registerImportsPost(app, routeDeps);
  registerListSessions(app, routeDeps);
  registerFleetStatus(app, routeDeps);
  registerCreateTenant(app, routeDeps);
  registerCreateKey(app, routeDeps);
  registerListKeys(app, routeDeps);
  registerRevokeKey(app, routeDeps);
  registerRotateKey(app, routeDeps);
  registerHealth(app, routeDeps);
  registerMetrics(app, routeDeps);
  registerOpenApi(app);
  return app;
}
