/**
 * Databases for the worker suites: PGlite (in memory, or in a temp directory when a test restarts
 * the worker over the same data) and a random database on the real Postgres server when the global
 * setup provides one (created here, dropped after).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { createDb, migrateDb, type DbHandle } from "@condense/db";

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
  const admin = postgresAdminUrl();
  const name = `condense_worker_${randomBytes(6).toString("hex")}`;
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database "${name}"`);
  await sql.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const s = postgres(admin, { max: 1, onnotice: () => {} });
      await s.unsafe(`drop database if exists "${name}" with (force)`);
      await s.end();
    },
  };
}

export async function openMigrated(url: string): Promise<DbHandle> {
  const handle = await createDb(url, { max: 5 });
  await migrateDb(handle);
  return handle;
}
