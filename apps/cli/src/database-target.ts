/**
 * Which database an operator command (migrate, tenant, key, status) works on: --database-url, else
 * DATABASE_URL, else the embedded default `pglite:<data-dir>/pglite` (the same place `condense serve`
 * keeps its data), so the commands work on a laptop with no server at all.
 */
import { join, resolve } from "node:path";
import { createDb, migrateDb, parseDbUrl, type DbHandle } from "@condense/db";
import { CliError, EXIT } from "./cli-error.ts";

export const DEFAULT_DATA_DIR = ".condense";

export function databaseUrlFrom(flags: { "database-url"?: string; "data-dir"?: string }, env: Record<string, string | undefined>): string {
  const explicit = flags["database-url"]?.trim() || env.DATABASE_URL?.trim();
  if (explicit) return explicit;
  return `pglite:${join(resolve(flags["data-dir"] ?? env.CONDENSE_DATA_DIR ?? DEFAULT_DATA_DIR), "pglite")}`;
}

/** Human-readable target without credentials. */
export function describeDatabase(url: string): string {
  const t = parseDbUrl(url);
  if (t.driver === "pglite") return `PGlite at ${t.dataDir ?? "(memory)"}`;
  const u = new URL(t.url);
  return `Postgres ${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** Opens the database; embedded (PGlite) databases are migrated on open, as `serve` would. */
export async function openDatabase(url: string): Promise<DbHandle> {
  let handle: DbHandle;
  try {
    handle = await createDb(url, { max: 2 });
  } catch (err) {
    throw new CliError(`cannot open ${describeDatabase(url)}: ${err instanceof Error ? err.message : String(err)}`, EXIT.failure, "check --database-url / DATABASE_URL");
  }
  if (handle.target.driver === "pglite") await migrateDb(handle);
  return handle;
}
