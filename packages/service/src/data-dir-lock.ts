/**
 * One owner per data directory. PGlite is one process's database: two processes on one directory each
 * see only their own writes and the last to stop overwrites the other's (captures lost, sequence
 * numbers handed out twice). So whoever opens a data directory first takes `owner.lock`:
 *   - created atomically (O_EXCL), holding the owner's pid, its process start time and what it serves;
 *   - a lock whose pid is dead, or alive but started at another time (the pid was reused), is stale and
 *     is taken over (the rule is @condense/client's owner-lock, which the client uses too); a crash (even SIGKILL) therefore never locks a directory for good;
 *   - takeover itself is serialized by an atomic mkdir, so two newcomers never both win.
 * A live owner makes `acquireDataDirLock` throw DataDirOwnedError, which says who owns it and what
 * to run instead.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { type LockOwner, ownerIsAlive, processStartTime, readOwnerLock } from "@condense/client";

export type { LockOwner };

export class DataDirOwnedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `the data directory ${dataDir} is in use by ${owner.role} (pid ${owner.pid}${owner.endpoint ? `, serving ${owner.endpoint}` : ""}); one process owns a data directory`,
    );
    this.name = "DataDirOwnedError";
  }
}

export interface DataDirLock {
  file: string;
  owner: LockOwner;
  /** Record where the owner is reachable once it listens (the file is replaced atomically). */
  setEndpoint(endpoint: string): void;
  /** Remove the lock if it is still ours. */
  release(): void;
}

export function lockFileOf(dataDir: string): string {
  return join(resolve(dataDir), "owner.lock");
}

/** The current owner of a data directory, if a live process holds it. */
export function dataDirOwner(dataDir: string): LockOwner | null {
  const owner = readOwnerLock(lockFileOf(dataDir));
  return owner && ownerIsAlive(owner) ? owner : null;
}

function tryCreate(file: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function acquireDataDirLock(dataDir: string, info: { role: string; endpoint?: string }): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = lockFileOf(dir);
  const owner: LockOwner = {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    role: info.role,
    ...(info.endpoint ? { endpoint: info.endpoint } : {}),
    since: new Date().toISOString(),
  };
  const takeover = `${file}.takeover`;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (tryCreate(file, owner)) return handle(file, owner);
    const current = readOwnerLock(file);
    if (current && ownerIsAlive(current)) {
      if (current.pid === process.pid && current.startTime === owner.startTime)
        throw new Error(`this process already owns ${dir}`);
      throw new DataDirOwnedError(dir, current);
    }
    // Stale (its owner died). Take it over under the takeover mutex; a mutex left by a crashed
    // taker is broken after a few seconds.
    try {
      mkdirSync(takeover);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(takeover).mtimeMs > 5_000) rmdirSync(takeover);
      } catch {
        /* gone already */
      }
      sleepSync(10);
      continue;
    }
    try {
      // Re-read under the mutex: another taker may have replaced it with a live owner meanwhile.
      const again = readOwnerLock(file);
      if (again && ownerIsAlive(again)) throw new DataDirOwnedError(dir, again);
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
      if (tryCreate(file, owner)) return handle(file, owner);
    } finally {
      try {
        rmdirSync(takeover);
      } catch {
        /* best effort */
      }
    }
  }
  throw new Error(`could not take the owner lock ${file}; remove it if no Condense process is running`);
}

function handle(file: string, owner: LockOwner): DataDirLock {
  let released = false;
  return {
    file,
    owner,
    setEndpoint(endpoint) {
      owner.endpoint = endpoint;
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
      renameSync(tmp, file);
    },
    release() {
      if (released) return;
      released = true;
      // Only our own lock: after a takeover (we were presumed dead) it belongs to someone else.
      const current = readOwnerLock(file);
      if (current && current.pid === owner.pid && current.startTime === owner.startTime) {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      }
    },
  };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
