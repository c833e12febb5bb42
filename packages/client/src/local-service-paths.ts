/**
 * Where the per-user local service keeps its files inside a data directory. Client and service both
 * derive them from the data directory alone, so nothing has to be configured or passed around.
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dataRoot, pgliteDirOf, processEnv, type Env } from "@condense/config";

export interface LocalServicePaths {
  dataDir: string;
  /** The Unix socket the service listens on. */
  socket: string;
  /** The local tenant's API key (mode 0600), written by the service. */
  apiKeyFile: string;
  /** An admin key for the service's admin routes (mode 0600), so admin commands go through it. */
  adminKeyFile: string;
  /** The owner lock (see @condense/service data-dir-lock). */
  lockFile: string;
  logFile: string;
  pgliteDir: string;
}

/** A Unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

export function localServicePaths(dataDir: string): LocalServicePaths {
  const dir = resolve(dataDir);
  let socket = join(dir, "service.sock");
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    // A data directory too deep for a socket path: a per-user name in the temp dir, derived from the
    // directory so every client computes the same one.
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    socket = join(tmpdir(), `condense-${uid}-${createHash("sha256").update(dir).digest("hex").slice(0, 16)}.sock`);
  }
  return {
    dataDir: dir,
    socket,
    apiKeyFile: join(dir, "api-key"),
    adminKeyFile: join(dir, "admin-key"),
    lockFile: join(dir, "owner.lock"),
    logFile: join(dir, "service.log"),
    pgliteDir: pgliteDirOf(dir),
  };
}

/**
 * The data directory: CONDENSE_DATA_DIR when set, else `<pi agent dir>/condense` (see @condense/config's
 * dataRoot: one meaning everywhere, the root that holds `pglite/`, the socket, the keys, the lock and the log).
 */
export function defaultDataDir(env: Env = processEnv()): string {
  return dataRoot(env);
}
