/**
 * How the CLI reaches the process that owns a data directory: the per-user local service over its
 * Unix socket (started when a command needs it), or `condense serve` over the URL in the owner lock.
 * Admin commands go through it with the directory's admin key instead of opening PGlite beside a
 * live owner, which would lose writes.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  localServiceHost,
  localServicePaths,
  socketFetch,
  LOCAL_ORIGIN,
  type FetchLike,
  type LocalServiceHost,
} from "@condense/client";
import { dataDirOwner, type LockOwner } from "@condense/service";
import { CliError, EXIT } from "./cli-error.ts";

/** `node <this>` starts the local service; resolved from @condense/service, never from the cwd. */
export function serviceEntry(): string {
  return createRequire(import.meta.url).resolve("@condense/service/daemon");
}

export function localHost(dataDir: string, env: Record<string, string | undefined>): LocalServiceHost {
  return localServiceHost({ dataDir, command: { file: process.execPath, args: [serviceEntry()] }, env });
}

export interface OwnerEndpoint {
  owner: LockOwner;
  base: string;
  fetch: FetchLike;
  adminKey: string | null;
  apiKey: string | null;
}

/** The live owner of a data directory and how to reach it, or null when nobody owns it. */
export function ownerEndpoint(dataDir: string): OwnerEndpoint | null {
  const owner = dataDirOwner(dataDir);
  if (!owner) return null;
  const paths = localServicePaths(dataDir);
  const read = (f: string) => {
    try {
      return readFileSync(f, "utf8").trim() || null;
    } catch {
      return null;
    }
  };
  const adminKey = read(paths.adminKeyFile);
  const apiKey = read(paths.apiKeyFile);
  if (owner.endpoint?.startsWith("http")) {
    return { owner, base: owner.endpoint.replace(/\/$/, ""), fetch: (i, init) => fetch(i, init), adminKey, apiKey };
  }
  if (owner.endpoint) return { owner, base: LOCAL_ORIGIN, fetch: socketFetch(owner.endpoint), adminKey, apiKey };
  return { owner, base: "", fetch: () => Promise.reject(new Error("not serving")), adminKey, apiKey };
}

/** The error for a data directory owned by a process that serves nothing we can reach. */
export function ownedError(dataDir: string, owner: LockOwner): CliError {
  return new CliError(
    `the data directory ${dataDir} is in use by ${owner.role} (pid ${owner.pid}); one process owns a data directory`,
    EXIT.failure,
    `wait for it to finish, or stop it (kill ${owner.pid}), or pass --data-dir <another dir>`,
  );
}

/** An admin request to the owner; errors say what to run. */
export async function adminRequest<T>(
  ep: OwnerEndpoint,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  auth: "admin" | "tenant" = "admin",
): Promise<{ status: number; body: T }> {
  const key = auth === "admin" ? ep.adminKey : ep.apiKey;
  if (!key) {
    throw new CliError(
      `${ep.owner.role} (pid ${ep.owner.pid}) owns the data directory but its ${auth} key is not readable`,
      EXIT.failure,
      auth === "admin"
        ? "restart it (condense service stop, then retry) so it writes <data-dir>/admin-key, or use its admin API with CONDENSE_ADMIN_KEY"
        : "check <data-dir>/api-key",
    );
  }
  let res: Response;
  try {
    res = await ep.fetch(`${ep.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new CliError(
      `cannot reach ${ep.owner.role} at ${ep.owner.endpoint}: ${err instanceof Error ? err.message : String(err)}`,
      EXIT.failure,
      "check it is running: condense service status",
    );
  }
  const parsed = (await res.json().catch(() => null)) as T;
  if (res.status === 401) {
    throw new CliError(
      `${ep.owner.role} rejected the ${auth} key (401)`,
      EXIT.failure,
      ep.owner.role.includes("serve")
        ? "condense serve takes its admin key from CONDENSE_ADMIN_KEY when set; use the same value, or unset it and restart serve"
        : "restart the local service: condense service stop",
    );
  }
  return { status: res.status, body: parsed };
}
