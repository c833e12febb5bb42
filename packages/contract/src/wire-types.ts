/**
 * The /v1 routes' request and response types, from the schemas: a request as a client may send it
 * (`z.input`: defaults optional) and a response as the API answers it (`z.output`). Types only, so a
 * client imports them with `import type` and loads no zod.
 */
import type { z } from "@hono/zod-openapi";
import type { ErrorBody } from "./errors.schema.ts";
import type { BodyPartBody, BodyPartResponse } from "./v1/sessions/bodies.schema.ts";
import type { CapturedBatchSchema, CapturesBody, CapturesResponse } from "./v1/sessions/captures.schema.ts";
import type { DiagnosticsBody, DiagnosticsResponse } from "./v1/sessions/diagnostics.schema.ts";
import type {
  DetectedChainSchema,
  FlushAccepted,
  FlushBody,
  MetricsSnapshotSchema,
} from "./v1/sessions/flushes.schema.ts";
import type { SessionImportBody, SessionImportResult } from "./v1/sessions/imports.schema.ts";
import type { QueryBody, QueryResponse } from "./v1/sessions/query.schema.ts";
import type { StateDeltaSchema } from "./v1/sessions/state.schema.ts";
import type { SessionStatusSchema } from "./v1/sessions/status.schema.ts";
import type { SummarizerHandOffAccepted, SummarizerHandOffBody } from "./v1/sessions/summarizer.schema.ts";

/** POST /v1/sessions/{sessionId}/captures */
export type CapturedBatchInput = z.input<typeof CapturedBatchSchema>;
export type CapturesRequest = z.input<typeof CapturesBody>;
export type CapturesAnswer = z.output<typeof CapturesResponse>;

/** POST /v1/sessions/{sessionId}/bodies */
export type BodyPartRequest = z.input<typeof BodyPartBody>;
export type BodyPartAnswer = z.output<typeof BodyPartResponse>;

/** POST /v1/sessions/{sessionId}/flushes */
export type FlushRequest = z.input<typeof FlushBody>;
export type FlushChainInput = z.input<typeof DetectedChainSchema>;
export type FlushMetricsInput = z.input<typeof MetricsSnapshotSchema>;
export type FlushAnswer = z.output<typeof FlushAccepted>;

/** GET /v1/sessions/{sessionId}/state?since= */
export type StateDeltaAnswer = z.output<typeof StateDeltaSchema>;
/** What the API may serve as a state delta (core's StateDelta must fit it). */
export type StateDeltaWire = z.input<typeof StateDeltaSchema>;

/** POST /v1/sessions/{sessionId}/query */
export type QueryRequest = z.input<typeof QueryBody>;
export type QueryAnswer = z.output<typeof QueryResponse>;

/** GET /v1/sessions/{sessionId}/status */
export type SessionStatusAnswer = z.output<typeof SessionStatusSchema>;

/** POST /v1/sessions/{sessionId}/diagnostics */
export type DiagnosticsRequest = z.input<typeof DiagnosticsBody>;
export type DiagnosticsAnswer = z.output<typeof DiagnosticsResponse>;

/** PUT /v1/sessions/{sessionId}/summarizer */
export type SummarizerHandOffRequest = z.input<typeof SummarizerHandOffBody>;
export type SummarizerHandOffAnswer = z.output<typeof SummarizerHandOffAccepted>;

/** POST /v1/sessions/{sessionId}/imports */
export type SessionImportRequest = z.input<typeof SessionImportBody>;
export type SessionImportAnswer = z.output<typeof SessionImportResult>;

/** Every error answer. */
export type ErrorAnswer = ErrorBody;
