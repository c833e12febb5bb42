/**
 * A service start on a new data directory with no template has the template made in a child process
 * (its marker names the child, not this process), seeds its database from it and serves; the next
 * start on another new directory seeds from the same template without a rebuild.
 */
import { readdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { startSingleProcessService } from "../src/single-process-service.ts";

/** The one directory template in `cache`: who built it, and when. */
function templateIn(cache: string): { builtBy: number; mtimeMs: number } {
  const dirs = readdirSync(cache).filter((f) => /^pglite-[0-9a-f]{16}$/.test(f));
  expect(dirs).toHaveLength(1);
  const dir = join(cache, dirs[0]!);
  const marker = JSON.parse(readFileSync(join(dir, "condense-template.json"), "utf8")) as { builtBy: number };
  return { builtBy: marker.builtBy, mtimeMs: statSync(dir).mtimeMs };
}

async function startAndUse(dataDir: string, cache: string): Promise<void> {
  const service = await startSingleProcessService({ dataDir, pgliteTemplateDir: [cache] });
  try {
    const rows = await service.runtime.db.db.execute(
      sql`select count(*)::int as n from information_schema.tables where table_name in ('sessions', 'captures', 'flush_metrics', 'capture_bodies')`,
    );
    expect(((Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number }).n).toBe(4);
    const res = await service.fetch(`${service.baseUrl}/v1/fleet/status`, {
      headers: { authorization: `Bearer ${service.apiKey}` },
    });
    expect(res.status).toBe(200);
  } finally {
    await service.close();
  }
}

describe("a service start with no PGlite template", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-service-template-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("has the template built in a child, seeds from it, and the next start reuses it", {
    timeout: 240_000,
  }, async () => {
    const cache = join(root, "cache");
    await startAndUse(join(root, "a"), cache);
    const made = templateIn(cache);
    expect(made.builtBy).not.toBe(process.pid);
    await startAndUse(join(root, "b"), cache);
    expect(templateIn(cache)).toEqual(made);
  });
});
