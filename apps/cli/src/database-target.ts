/**
 * Which database an operator command (migrate, tenant, key, status) works on: --database-url, else
 * DATABASE_URL, else the data directory (--data-dir, else CONDENSE_DATA_DIR, else ~/.pi/agent/condense:
 * the same directory the local service and `condense serve` use), whose PGlite lives in `<dir>/pglite`.
 * A data directory is only ever opened under its owner lock.
 */
import { defaultDataDir, localServicePaths } from "@condense/client";
import { cliConfig } from "@condense/config";
import { createDb, migrateDb, parseDbUrl, type DbHandle } from "@condense/db";
import { acquireDataDirLock, DataDirOwnedError } from "@condense/service";
import { CliError, EXIT } from "./cli-error.ts";

export type DatabaseTarget = { kind: "url"; url: string } | { kind: "data-dir"; dataDir: string; url: string };

export function dataDirFrom(flags: { "data-dir"?: string }, env: Record<string, string | undefined>): string {
  return defaultDataDir(flags["data-dir"] ? { ...env, CONDENSE_DATA_DIR: flags["data-dir"] } : env);
}

export function databaseTargetFrom(
  flags: { "database-url"?: string; "data-dir"?: string },
  env: Record<string, string | undefined>,
): DatabaseTarget {
  const explicit = flags["database-url"]?.trim() || cliConfig(env).databaseUrl;
  if (explicit) return { kind: "url", url: explicit };
  const dataDir = dataDirFrom(flags, env);
  return { kind: "data-dir", dataDir, url: `pglite:${localServicePaths(dataDir).pgliteDir}` };
}

export function databaseUrlFrom(
  flags: { "database-url"?: string; "data-dir"?: string },
  env: Record<string, string | undefined>,
): string {
  return databaseTargetFrom(flags, env).url;
}

/** Human-readable target without credentials. */
export function describeDatabase(url: string): string {
  const t = parseDbUrl(url);
  if (t.driver === "pglite") return `PGlite at ${t.dataDir ?? "(memory)"}`;
  const u = new URL(t.url);
  return `Postgres ${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/**
 * Opens the database; a data directory's PGlite only under its owner lock (refused, with what to run,
 * while another process owns it) and migrated on open, as the service would.
 */
export async function openDatabase(url: string, role = "a condense command"): Promise<DbHandle> {
  const t = parseDbUrl(url);
  let release = () => {};
  if (t.driver === "pglite" && t.dataDir && t.dataDir.endsWith("/pglite")) {
    const dataDir = t.dataDir.slice(0, -"/pglite".length);
    try {
      release = acquireDataDirLock(dataDir, { role }).release;
    } catch (err) {
      if (err instanceof DataDirOwnedError) {
        throw new CliError(
          err.message,
          EXIT.failure,
          err.owner.endpoint
            ? `the command goes through it when it can (tenant, key, status); otherwise stop it first (condense service stop, or kill ${err.owner.pid})`
            : `wait for it to finish or stop it (kill ${err.owner.pid}), or pass --data-dir <another dir>`,
        );
      }
      throw err;
    }
  }
  let handle: DbHandle;
  try {
    handle = await createDb(url, { max: 2 });
  } catch (err) {
    release();
    throw new CliError(
      `cannot open ${describeDatabase(url)}: ${err instanceof Error ? err.message : String(err)}`,
      EXIT.failure,
      "check --database-url / DATABASE_URL",
    );
  }
  try {
    if (handle.target.driver === "pglite") await migrateDb(handle);
  } catch (err) {
    await handle.close().catch(() => {});
    release();
    throw err;
  }
  const close = handle.close.bind(handle);
  return {
    ...handle,
    close: async () => {
      try {
        await close();
      } finally {
        release();
      }
    },
  };
}
