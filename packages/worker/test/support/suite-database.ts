/**
 * One migrated database per `describe` block, with the test tenant in it: created before the block's
 * tests and dropped after. `db` is read inside tests (it exists only once `beforeAll` has run).
 */
import { afterAll, beforeAll } from "vitest";
import type { Db, DbHandle } from "@condense/db";
import { setupTenant } from "./flush-fixtures.ts";
import { createTestDatabase, openMigrated, type TestDatabase, type TestDbKind } from "@condense/test-support/test-db";

export interface SuiteDatabase {
  readonly db: Db;
  /** Close the handle and open the same data again: what a restarted worker process sees. */
  reopen(): Promise<void>;
}

export function useSuiteDatabase(kind: TestDbKind): SuiteDatabase {
  let tdb: TestDatabase | undefined;
  let handle: DbHandle | undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    handle = await openMigrated(tdb.url);
    await setupTenant(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await tdb?.drop();
  });
  return {
    get db(): Db {
      if (!handle) throw new Error("the suite database is not ready: read `db` inside a test, not at collection time");
      return handle.db;
    },
    async reopen() {
      await handle?.close();
      handle = await openMigrated(tdb!.url);
    },
  };
}
