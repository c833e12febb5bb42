/**
 * @condense/db: the drizzle schema, `createDb(url)` over postgres.js or PGlite, the locked migrator,
 * and the repository functions the API and the worker use (no SQL lives outside this package).
 */
export { createDb, parseDbUrl, reconnectBackoffSeconds, type CreateDbOptions, type Db, type DbHandle, type DbSchema, type DbTarget, type Tx } from "./client.ts";
export { migrateDb, MIGRATIONS_FOLDER, MIGRATION_LOCK_KEY } from "./migrate.ts";
export { lockSession, sessionLockKey } from "./session-lock.ts";
export * as schema from "./schema/index.ts";
export { CAPTURE_STATUSES, FLUSH_REQUEST_STATUSES, type CaptureStatus, type FlushRequestStatus } from "./schema/index.ts";

export * from "./repo/tenants.ts";
export * from "./repo/sessions.ts";
export * from "./repo/captures.ts";
export * from "./repo/flush-requests.ts";
export { recordFlushMetrics, type FlushMetricsWrite, type RecordFlushMetricsInput } from "./repo/flush-metrics.ts";
export { commitFlush, type CommitFlushInput, type CommitFlushResult, type FlushWrites, type SeenSession } from "./repo/commit-flush.ts";
export { commitChains, type ChainWrite, type ChainWrites, type CommitChainsInput, type CommitChainsResult, type DiagnosticWrite } from "./repo/commit-chains.ts";
export { mintRefs, type MintedRefs } from "./repo/ref-minting.ts";
export type { RecordWrite } from "./repo/state-rows.ts";
export { getStateDelta } from "./repo/state-delta.ts";
export { findCanonicalByHash, type CanonicalRecord } from "./repo/dedup-canonicals.ts";
export * from "./repo/recoveries.ts";
export * from "./repo/diagnostics.ts";
export * from "./repo/session-status.ts";
export * from "./repo/fleet-status.ts";
export { getSessionVersions } from "./repositories/api-session-versions.ts";
export { pingDb } from "./repositories/api-health.ts";
export { listRecentFlushes, type RecentFlush } from "./repositories/api-recent-flushes.ts";
export { createScratchDatabase, type ScratchDatabase } from "./scratch-database.ts";
export { reserveRefs, type RefReservation, type ReserveRefsInput } from "./repo/ref-reservation.ts";
export { loadFlushRun, type FlushRunLoad } from "./repo/flush-run-load.ts";
export {
  findIndexedKeys, loadCapturesByKeys, nextFlushAttempt, notePendingReason, listStaleQueuedFlushRequests, listUnfinishedChainStages, countCapturesByStatus,
  type CaptureRow, type QueuedFlushRequest,
} from "./repo/flush-worker.ts";
