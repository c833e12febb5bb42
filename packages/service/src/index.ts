/**
 * @condense/service: the single-process Condense service (PGlite + in-process queue + worker + API),
 * composed once and used by `condense serve`, `condense replay` and the per-user local service; the
 * data directory's owner lock; the local service's runner.
 */
export {
  startSingleProcessService,
  IN_PROCESS_ORIGIN,
  type SingleProcessService,
  type SingleProcessOptions,
} from "./single-process-service.ts";
export {
  acquireDataDirLock,
  dataDirOwner,
  lockFileOf,
  DataDirOwnedError,
  type DataDirLock,
  type LockOwner,
} from "./data-dir-lock.ts";
export {
  runLocalService,
  dataDirAdminKey,
  DEFAULT_IDLE_MS,
  type LocalServiceOptions,
  type RunningLocalService,
} from "./local-service.ts";
export { localApiKey, LOCAL_TENANT } from "./local-api-key.ts";
