/**
 * @condense/db: the drizzle schema, `createDb(url)` over postgres.js or PGlite, the locked migrator,
 * and the repositories the API and the worker use (no SQL lives outside this package): one module
 * per table in repo/, plus the cross-table operations (repo/README.md lists them).
 */
export {
  createDb,
  parseDbUrl,
  pingDb,
  reconnectBackoffSeconds,
  type CreateDbOptions,
  type Db,
  type DbHandle,
  type DbSchema,
  type DbTarget,
  type Tx,
} from "./client.ts";
export { ConflictError, NotFoundError } from "./errors.ts";
export { migrateDb, MIGRATIONS_FOLDER, MIGRATION_LOCK_KEY } from "./migrate.ts";
export { openMigratedMemoryPglite } from "./pglite-memory-template.ts";
export { type PgliteWasmTier, setPgliteWasmTier } from "./pglite-wasm-tier.ts";
export { keepAsMigratedTemplate, seedFromTemplate, seedMigratedPglite } from "./pglite-template.ts";
export {
  ensurePgliteTemplates,
  type EnsuredTemplates,
  removeStaleTemplates,
  templateCacheDirs,
} from "./pglite-template-cache.ts";
export { lockSession, sessionLockKey } from "./session-lock.ts";
export { createScratchDatabase, type ScratchDatabase } from "./scratch-database.ts";
export {
  newStartupState,
  untilAvailable,
  type StartupState,
  type WaitLogger,
  type WaitOptions,
} from "./dependency-wait.ts";
export * as schema from "./schema/index.ts";
export {
  CAPTURE_STATUSES,
  FLUSH_REQUEST_STATUSES,
  type CaptureStatus,
  type FlushRequestStatus,
  type SummaryModel,
} from "./schema/index.ts";

// One module per table.
export * from "./repo/tenants.ts";
export * from "./repo/api-keys.ts";
export * from "./repo/sessions.ts";
export * from "./repo/captures.ts";
export * from "./repo/capture-bodies.ts";
export {
  findCanonicalByHash,
  lookupRecordsForQuery,
  type CanonicalRecord,
  type RecordWrite,
} from "./repo/tool-call-records.ts";
export type { RecoveredHit, RecoveryAnswer } from "./repo/tool-call-records.ts";
export * from "./repo/flush-requests.ts";
export {
  listRecentFlushes,
  recordFlushMetrics,
  type CacheEconomicsRow,
  type FlushMetricsWrite,
  type RecentFlush,
  type RecordFlushMetricsInput,
} from "./repo/flush-metrics.ts";
export { compressedChainStarts } from "./repo/chains.ts";
export * from "./repo/diagnostics.ts";
export * from "./repo/recoveries.ts";

// Cross-table operations.
export {
  loadFlushRun,
  loadPendingForFlush,
  type CanonicalHint,
  type FlushRunLoad,
  type PendingForFlush,
} from "./repo/flush-run-load.ts";
export { reserveRefs, type RefReservation, type ReserveRefsInput } from "./repo/ref-reservation.ts";
export {
  commitFlush,
  type CommitFlushInput,
  type CommitFlushResult,
  type FlushWrites,
  type SeenSession,
} from "./repo/flush-commit.ts";
export {
  commitChains,
  type ChainWrite,
  type ChainWrites,
  type CommitChainsInput,
  type CommitChainsResult,
  type DiagnosticWrite,
} from "./repo/chain-commit.ts";
export { mintRefs, type MintedRefs } from "./repo/ref-minting.ts";
export { getStateDelta } from "./repo/state-delta.ts";
export * from "./repo/status.ts";
export * from "./repo/import-session.ts";
export * from "./repo/retention.ts";
