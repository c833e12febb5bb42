/**
 * Databases for the suites: PGlite (in memory, or in a temp directory when a test reopens the same
 * data, as a restarted worker does) and a random database on the real Postgres server when the global
 * setup provides a postgres:// URL (created here, dropped after).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { createDb, createScratchDatabase, migrateDb, type DbHandle } from "@condense/db";

export type TestDbKind = "pglite" | "postgres";

/** The real Postgres server's admin URL from the global setup, or "" when there is none. */
export function postgresAdminUrl(): string {
  const url = inject("databaseUrl");
  return url.startsWith("postgres") ? url : "";
}

/** The database kinds to run a suite on; warns loudly when real Postgres is missing. */
export function testDbKinds(): TestDbKind[] {
  if (postgresAdminUrl()) return ["pglite", "postgres"];
  console.warn(
    "\n!!! NO POSTGRES: database suites run on PGlite only. Set DATABASE_URL to run them on real Postgres. !!!\n",
  );
  return ["pglite"];
}

export interface TestDatabase {
  /** A URL createDb accepts; the same URL reopens the same data (PGlite on disk, or the PG database). */
  url: string;
  drop(): Promise<void>;
}

/** An empty database (no migrations applied); PGlite on disk unless `inMemory`. */
export async function createTestDatabase(kind: TestDbKind, opts: { inMemory?: boolean } = {}): Promise<TestDatabase> {
  if (kind === "pglite" && opts.inMemory) return { url: "memory://", drop: async () => {} };
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "condense-test-db-"));
    return { url: `pglite:${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const scratch = await createScratchDatabase(postgresAdminUrl(), "condense_test");
  return { url: scratch.url, drop: scratch.drop };
}

export async function openMigrated(url: string): Promise<DbHandle> {
  const handle = await createDb(url, { max: 5 });
  await migrateDb(handle);
  return handle;
}

export interface TestDb {
  handle: DbHandle;
  url: string;
  drop(): Promise<void>;
}

/** A migrated database (PGlite in memory) and its handle; `drop()` closes the handle and removes the database. */
export async function createTestDb(kind: TestDbKind): Promise<TestDb> {
  const empty = await createTestDatabase(kind, { inMemory: true });
  const handle = await openMigrated(empty.url);
  return {
    handle,
    url: empty.url,
    drop: async () => {
      await handle.close();
      await empty.drop();
    },
  };
}
