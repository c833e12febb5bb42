/**
 * PGlite's start parameters: its own defaults with a smaller Postgres buffer pool than the 128 MB an
 * initdb writes into postgresql.conf. The pool is allocated and set up at every start, and a PGlite
 * process has one session, so most of it only doubles what the file system holds:
 * - in memory (the replay's database): the data lives in memory already; a page the pool drops is
 *   copied back from the in-memory file system. 16 MB: the README replay took 0.90x the wall time with
 *   87 MB less peak memory; the largest shared session (before-compaction, 50 s) the same time with
 *   200 MB less.
 * - on disk (the local service, `condense serve`): a page the pool drops is one read from the page
 *   cache. 32 MB: a start on a fresh copy of the template took 60-130 ms less CPU, and the process
 *   holds about 100 MB less.
 * Measured on a 2 vCPU AMD EPYC guest, 2026-12-07.
 */
import { PGlite } from "@electric-sql/pglite";

const withSharedBuffers = (size: string): string[] => [...PGlite.defaultStartParams, "-c", `shared_buffers=${size}`];

export const MEMORY_START_PARAMS = withSharedBuffers("16MB");
export const DIRECTORY_START_PARAMS = withSharedBuffers("32MB");
