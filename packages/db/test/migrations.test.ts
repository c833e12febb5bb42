import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, migrateDb } from "../src/index.ts";
import { createTestDatabase, testDbKinds } from "@condense/test-support/test-db";
import { readFileSync } from "node:fs";
import { MIGRATIONS_FOLDER } from "../src/migrate.ts";

const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, "utf8")) as { entries: unknown[] };
const rowsOf = (r: unknown): Record<string, unknown>[] =>
  Array.isArray(r) ? r : (r as { rows: Record<string, unknown>[] }).rows;

describe.each(testDbKinds())("migrations (%s)", (kind) => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of drops) await d();
  });

  it("apply every table, and a second run is a no-op", async () => {
    const empty = await createTestDatabase(kind, { inMemory: true });
    const handle = await createDb(empty.url);
    drops.push(async () => {
      await handle.close();
      await empty.drop();
    });
    await migrateDb(handle);
    await migrateDb(handle);
    const tables = rowsOf(
      await handle.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`,
      ),
    ).map((r) => r.table_name);
    expect(tables).toEqual([
      "api_keys",
      "capture_bodies",
      "captures",
      "chains",
      "dedup_aliases",
      "diagnostics",
      "flush_metrics",
      "flush_requests",
      "frontiers",
      "recoveries",
      "sessions",
      "summaries",
      "tenants",
      "tool_call_records",
    ]);
    const applied = rowsOf(await handle.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`));
    expect(applied[0]!.n).toBe(journal.entries.length);
  });

  it("4 concurrent migrators on a fresh database all succeed and apply each migration once", async () => {
    const empty = await createTestDatabase(kind, { inMemory: true });
    // Postgres: four separate replicas (handles). PGlite: one embedded instance shared by four callers.
    const handles =
      kind === "postgres"
        ? await Promise.all([1, 2, 3, 4].map(() => createDb(empty.url, { max: 2 })))
        : [await createDb(empty.url)];
    drops.push(async () => {
      for (const h of handles) await h.close();
      await empty.drop();
    });
    const results = await Promise.allSettled([0, 1, 2, 3].map((i) => migrateDb(handles[i % handles.length]!)));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    const applied = rowsOf(
      await handles[0]!.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
    );
    expect(applied[0]!.n).toBe(journal.entries.length);
  });
});
