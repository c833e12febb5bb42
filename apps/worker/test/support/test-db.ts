/**
 * Databases for the worker suites: PGlite (in memory, or in a temp directory when a test restarts
 * the worker over the same data) and a random database on the real Postgres server when the global
 * setup provides one (created here, dropped after).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { createDb, createScratchDatabase, migrateDb, type DbHandle } from "@condense/db";

export type TestDbKind = "pglite" | "postgres";

export function postgresAdminUrl(): string {
  const url = inject("databaseUrl");
  return url.startsWith("postgres") ? url : "";
}

export function testDbKinds(): TestDbKind[] {
  if (postgresAdminUrl()) return ["pglite", "postgres"];
  console.warn("\n!!! NO POSTGRES: worker suites run on PGlite only. Set DATABASE_URL to run them on real Postgres. !!!\n");
  return ["pglite"];
}

export interface TestDatabase {
  /** A URL createDb accepts; the same URL reopens the same data (PGlite on disk, or the PG database). */
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: TestDbKind, opts: { inMemory?: boolean } = {}): Promise<TestDatabase> {
  if (kind === "pglite" && opts.inMemory) return { url: "memory://", drop: async () => {} };
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "condense-worker-"));
    return { url: `pglite:${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const scratch = await createScratchDatabase(postgresAdminUrl(), "condense_worker");
  return { url: scratch.url, drop: scratch.drop };
}

export async function openMigrated(url: string): Promise<DbHandle> {
  const handle = await createDb(url, { max: 5 });
  await migrateDb(handle);
  return handle;
}
