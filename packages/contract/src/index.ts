/**
 * @condense/contract: the one wire contract. The zod schemas of every /v1 route (the API validates with
 * them and builds its OpenAPI document from them; the client takes its request and response types from
 * them, type-only), the error body, the job payloads, and the vocabulary (error codes, flush triggers),
 * which code that must not load zod imports from `@condense/contract/vocabulary`.
 */
export * from "./vocabulary.ts";
export * from "./errors.schema.ts";
export * from "./jobs/session-jobs.schema.ts";
export * from "./v1/common.schema.ts";
export * from "./v1/admin/tenants.schema.ts";
export * from "./v1/admin/keys.schema.ts";
export * from "./v1/fleet/status.schema.ts";
export * from "./v1/sessions/bodies.schema.ts";
export * from "./v1/sessions/captures.schema.ts";
export * from "./v1/sessions/diagnostics.schema.ts";
export * from "./v1/sessions/flushes.schema.ts";
export * from "./v1/sessions/imports.schema.ts";
export * from "./v1/sessions/list.schema.ts";
export * from "./v1/sessions/query.schema.ts";
export * from "./v1/sessions/state.schema.ts";
export * from "./v1/sessions/status.schema.ts";
export * from "./v1/sessions/summarizer.schema.ts";
export type * from "./wire-types.ts";
