/** @condense/api: the Hono API app factory, its server and its env. */
export { newApp, appConfigFromEnv, DEFAULT_APP_CONFIG, type AppDeps, type AppConfig } from "./app.ts";
export { startServer, type StartServerConfig, type RunningServer } from "./server.ts";
export { loadApiEnv, ApiEnvError, type ApiEnv } from "./env.ts";
export { apiQueueFrom, type ApiQueue, type FlushJobRequest, type QueueDepth } from "./queue-port.ts";
export { VersionHub, versionChannel, type VersionMessage } from "./sse/version-hub.ts";
export { ApiError } from "./errors/codes.ts";
export { createApiMetrics, type ApiMetrics } from "./observability/http-metrics.ts";
export type { FallbackState } from "./routes/route-deps.ts";
