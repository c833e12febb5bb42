/**
 * Fresh databases for the db suites: PGlite in memory always, and a random database on the real
 * Postgres server when the global setup provides a postgres:// URL (created here, dropped after).
 */
import { inject } from "vitest";
import { createDb, createScratchDatabase, migrateDb, type DbHandle } from "../../src/index.ts";

export type TestDbKind = "pglite" | "postgres";

export const adminUrl = (): string => {
  const url = inject("databaseUrl");
  return url.startsWith("postgres") ? url : "";
};

/** The database kinds to run a suite on; warns loudly when real Postgres is missing. */
export function testDbKinds(): TestDbKind[] {
  if (adminUrl()) return ["pglite", "postgres"];
  console.warn("\n!!! NO POSTGRES: @condense/db suites run on PGlite only. Set DATABASE_URL to run them on real Postgres. !!!\n");
  return ["pglite"];
}

export interface TestDb {
  handle: DbHandle;
  url: string;
  drop(): Promise<void>;
}

/** An empty database (no migrations applied) of the given kind. */
export async function createEmptyDatabase(kind: TestDbKind): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "pglite") return { url: "memory://", drop: async () => {} };
  const scratch = await createScratchDatabase(adminUrl(), "condense_test");
  return { url: scratch.url, drop: scratch.drop };
}

/** A migrated database and its handle; `drop()` closes the handle and removes the database. */
export async function createTestDb(kind: TestDbKind): Promise<TestDb> {
  const empty = await createEmptyDatabase(kind);
  const handle = await createDb(empty.url, { max: 5 });
  await migrateDb(handle);
  return {
    handle,
    url: empty.url,
    drop: async () => {
      await handle.close();
      await empty.drop();
    },
  };
}
