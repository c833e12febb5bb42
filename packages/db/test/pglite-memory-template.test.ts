/**
 * openMigratedMemoryPglite: the first open migrates in memory and caches a tarball of the result (taken
 * after a checkpoint, hence its "-ckpt" name); the next loads that tarball (not rewritten) and has every table; two databases opened from it are
 * independent (a write in one is not in the other), and nothing is written beside the tarball.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { type DbHandle, openMigratedMemoryPglite } from "../src/index.ts";

async function count(h: DbHandle, query: ReturnType<typeof sql>): Promise<number> {
  const rows = await h.db.execute(query);
  const first = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number };
  return first.n;
}

describe("openMigratedMemoryPglite", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-memory-template-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("caches a migrated tarball once and opens independent in-memory databases from it", async () => {
    const cache = join(root, "cache");
    const first = await openMigratedMemoryPglite(cache);
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^pglite-[0-9a-f]{16}-ckpt\.tar$/);
    const made = statSync(join(cache, files[0]!)).mtimeMs;
    const second = await openMigratedMemoryPglite(cache);
    try {
      expect(statSync(join(cache, files[0]!)).mtimeMs).toBe(made);
      expect(readdirSync(cache)).toEqual(files);
      const tables = sql`select count(*)::int as n from information_schema.tables where table_name in ('sessions', 'captures', 'flush_metrics', 'capture_bodies')`;
      expect(await count(first, tables)).toBe(4);
      expect(await count(second, tables)).toBe(4);
      await first.db.execute(sql`create table probe_only_in_first (x int)`);
      const probe = sql`select count(*)::int as n from information_schema.tables where table_name = 'probe_only_in_first'`;
      expect(await count(first, probe)).toBe(1);
      expect(await count(second, probe)).toBe(0);
      // Both the migrating open and the tarball's run on the small buffer pool (the data is in memory).
      const pool = sql`select setting::int * 8 / 1024 as n from pg_settings where name = 'shared_buffers'`;
      expect(await count(first, pool)).toBe(16);
      expect(await count(second, pool)).toBe(16);
    } finally {
      await first.close();
      await second.close();
    }
  }, 120_000);
});
