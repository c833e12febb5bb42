/**
 * Applies the committed drizzle-kit migrations. drizzle's migrator takes no lock and reads the last
 * applied migration outside its transaction, so replicas booting together could apply the same
 * migration twice. On Postgres we hold a session advisory lock on a dedicated one-connection client
 * for the whole run; PGlite is a single in-process connection and needs none.
 */
import { fileURLToPath } from "node:url";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { DbHandle } from "./client.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../migrations", import.meta.url));
/** Fixed key of the migration advisory lock (an arbitrary constant, "condense" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x636f6e64656e7365n;

// PGlite has no second connection to contend with, but two migrate calls on one instance would still
// interleave their awaits; chain them per instance instead of locking.
const pgliteRuns = new WeakMap<object, Promise<void>>();

export async function migrateDb(handle: DbHandle): Promise<void> {
  if (handle.target.driver === "pglite") {
    const client = handle.pglite;
    if (!client) throw new Error("PGlite handle without its client");
    const run = (pgliteRuns.get(client) ?? Promise.resolve())
      .catch(() => {})
      .then(() => migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_FOLDER }));
    pgliteRuns.set(client, run);
    return run;
  }
  const sql = postgres(handle.target.url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await migratePostgres(drizzlePostgres({ client: sql }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
