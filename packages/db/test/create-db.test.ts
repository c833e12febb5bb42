import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, type DbHandle, ensureTenant, getTenant, migrateDb, parseDbUrl } from "../src/index.ts";

async function poolMb(h: DbHandle): Promise<number> {
  const r = (await h.db.execute(
    sql`select setting::int * 8 / 1024 as mb from pg_settings where name = 'shared_buffers'`,
  )) as unknown as { rows?: { mb: number }[] } & { mb: number }[];
  return Number((r.rows ?? r)[0]!.mb);
}

describe("createDb URL handling", () => {
  it("picks the driver from the URL", () => {
    expect(parseDbUrl("postgres://u@h:5432/db")).toEqual({ driver: "postgres", url: "postgres://u@h:5432/db" });
    expect(parseDbUrl("postgresql://u@h/db").driver).toBe("postgres");
    for (const mem of ["pglite:", "pglite://", "memory://"])
      expect(parseDbUrl(mem)).toEqual({ driver: "pglite", dataDir: undefined });
    expect(parseDbUrl("pglite://./data/condense")).toEqual({ driver: "pglite", dataDir: "./data/condense" });
    expect(parseDbUrl("/var/lib/condense")).toEqual({ driver: "pglite", dataDir: "/var/lib/condense" });
    expect(() => parseDbUrl("mysql://x")).toThrow(/unsupported/);
  });

  it("a PGlite directory keeps its data across reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-pglite-"));
    try {
      const first = await createDb(`pglite://${dir}`);
      await migrateDb(first);
      await ensureTenant(first.db, { id: "local", name: "Local" });
      // pglite-start-params.ts: a directory runs on a 32 MB buffer pool, an in-memory database on 16 MB.
      expect(await poolMb(first)).toBe(32);
      const memory = await createDb("memory://");
      expect(await poolMb(memory)).toBe(16);
      await memory.close();
      await first.close();
      const second = await createDb(dir);
      await migrateDb(second);
      expect(await getTenant(second.db, "local")).toMatchObject({ id: "local", name: "Local" });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
