/**
 * @condense/client: the agent-side SDK. HTTP only (global fetch), no heavy dependencies: capture,
 * trigger policy, state mirror, render against the mirror, recovery queries and status.
 */
export {
  createCondenseClient,
  type ClientEvent,
  type CondenseClient,
  type CondenseClientOptions,
  type CondenseHost,
  type CaptureResult,
  type QueryResult,
  type RenderOutput,
  type StartResult,
  type TurnInput,
} from "./client.ts";
export { buildFlushRequest, type FlushChain, type FlushInput, type FlushMetricsSnapshot, type FlushRequestBody } from "./flush-request.ts";
export { captureIdFor } from "./capture-id.ts";
export { CaptureSpool, type SpooledCapture } from "./capture-spool.ts";
export { createTransport, CondenseHttpError, type FetchLike, type Transport, type TransportOptions } from "./transport.ts";
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.ts";
export { readSse, type SseEvent } from "./sse-reader.ts";
export { TriggerState, type TriggerDecision } from "./trigger-state.ts";
