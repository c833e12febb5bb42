/**
 * @condense/client: the agent-side SDK. HTTP only (global fetch, or node:http over the local service's
 * Unix socket), no heavy dependencies: capture,
 * trigger policy, state mirror, render against the mirror, recovery queries and status.
 */
export {
  createCondenseClient,
  type CondenseClient,
  type CondenseClientOptions,
  type CondenseHost,
  type CaptureResult,
  type QueryResult,
  type RenderOutput,
  type StartResult,
  type TurnInput,
} from "./client.ts";
export type { ClientEvent } from "./client-events.ts";
export {
  buildFlushRequest,
  type FlushBuild,
  type FlushChain,
  type FlushInput,
  type FlushMetricsSnapshot,
  type FlushRequestBody,
} from "./flush-request.ts";
export { captureIdFor } from "./capture-id.ts";
export { CaptureSpool, type SpooledCapture } from "./capture-spool.ts";
export { StateCache, type StateCacheLoad, type StateCacheWrite } from "./state-cache.ts";
export {
  localServiceHost,
  LOCAL_ORIGIN,
  OWNED_EXIT_CODE,
  type LocalServiceHost,
  type LocalServiceOptions,
} from "./local-service.ts";
export { ownerIsAlive, processStartTime, readOwnerLock, type LockOwner } from "./owner-lock.ts";
export { defaultDataDir, localServicePaths, type LocalServicePaths } from "./local-service-paths.ts";
export { socketFetch, isNoListener } from "./socket-fetch.ts";
export {
  createTransport,
  CondenseHttpError,
  type FetchLike,
  type Transport,
  type TransportOptions,
} from "./transport.ts";
export type { ScheduleBackground } from "./background-schedule.ts";
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.ts";
export { readSse, type SseEvent } from "./sse-reader.ts";
export { TriggerState, type TriggerDecision } from "./trigger-state.ts";
export {
  SummarizerHandOff,
  NOT_HANDED_OFF,
  type SummarizerHandOffBody,
  type ResolveHandOff,
  type HandOffResult,
} from "./summarizer-handoff.ts";
