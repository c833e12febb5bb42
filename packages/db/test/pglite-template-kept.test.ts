/**
 * keepAsMigratedTemplate / seedFromTemplate, the local service's way to a template without a second
 * PGlite: with no template, seedFromTemplate makes nothing; a directory open in this process, just
 * migrated, is kept as the template (without the live instance's postmaster.pid), and a new directory
 * seeded from it opens with every table and none of the rows written after it was kept.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import {
  createDb,
  type DbHandle,
  ensureTenant,
  keepAsMigratedTemplate,
  migrateDb,
  seedFromTemplate,
} from "../src/index.ts";

async function count(h: DbHandle, query: ReturnType<typeof sql>): Promise<number> {
  const rows = await h.db.execute(query);
  return ((Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number }).n;
}

describe("keepAsMigratedTemplate", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-template-kept-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("keeps a live, just-migrated directory as the template a new directory is seeded from", async () => {
    const cache = join(root, "cache");
    expect(seedFromTemplate(join(root, "a"), cache)).toBe(false);
    expect(existsSync(join(root, "a"))).toBe(false);

    const first = await createDb(`pglite:${join(root, "first")}`);
    try {
      await migrateDb(first);
      await keepAsMigratedTemplate(first, cache);
      // Written after the template was kept: must not be in a seeded directory.
      await ensureTenant(first.db, { id: "only-in-first", name: "x" });
    } finally {
      await first.close();
    }
    const templates = readdirSync(cache);
    expect(templates).toHaveLength(1);
    expect(readdirSync(join(cache, templates[0]!))).not.toContain("postmaster.pid");

    expect(seedFromTemplate(join(root, "b"), cache)).toBe(true);
    expect(seedFromTemplate(join(root, "b"), cache)).toBe(false);
    const seeded = await createDb(`pglite:${join(root, "b")}`);
    try {
      const tables = sql`select count(*)::int as n from information_schema.tables where table_name in ('sessions', 'captures', 'flush_metrics', 'capture_bodies')`;
      expect(await count(seeded, tables)).toBe(4);
      expect(await count(seeded, sql`select count(*)::int as n from tenants`)).toBe(0);
      await ensureTenant(seeded.db, { id: "seeded", name: "y" });
      expect(await count(seeded, sql`select count(*)::int as n from tenants`)).toBe(1);
    } finally {
      await seeded.close();
    }
  }, 180_000);
});
