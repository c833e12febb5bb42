/**
 * seedMigratedPglite: a new PGlite directory copied from a migrated template opens with every table
 * and needs no migration; the template is made once and reused; an existing directory is refused.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, seedMigratedPglite } from "../src/index.ts";

describe("seedMigratedPglite", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-template-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("seeds a migrated database, reuses its template, and refuses a directory that exists", async () => {
    const cache = join(root, "cache");
    const template = await seedMigratedPglite(join(root, "a"), cache);
    const made = statSync(template).mtimeMs;
    expect(await seedMigratedPglite(join(root, "b"), cache)).toBe(template);
    expect(statSync(template).mtimeMs).toBe(made);

    const db = await createDb(`pglite:${join(root, "b")}`);
    try {
      const rows = await db.db.execute(
        sql`select count(*)::int as n from information_schema.tables where table_name in ('sessions', 'captures', 'flush_metrics', 'capture_bodies')`,
      );
      const n = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number };
      expect(n.n).toBe(4);
    } finally {
      await db.close();
    }
    await expect(seedMigratedPglite(join(root, "b"), cache)).rejects.toThrow(/already exists/);
  }, 120_000);
});
