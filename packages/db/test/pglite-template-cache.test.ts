/**
 * The template cache (pglite-template-cache.ts): a missing template is built in a child process (its
 * marker names the child's pid, not this one's) and then found and used without a rebuild; two builders
 * at once build once; a dead builder's staging leftovers and lock are removed (a live one's are not);
 * a template directory without its marker and a tarball that does not load are ignored and replaced;
 * a cache directory that cannot be made is skipped for the next.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, type DbHandle, openMigratedMemoryPglite, seedFromTemplate } from "../src/index.ts";
import {
  ensurePgliteTemplates,
  findTemplate,
  removeStaleTemplates,
  TEMPLATE_MARKER,
  templateCacheDirs,
  templateDirIn,
  templateTarballIn,
} from "../src/pglite-template-cache.ts";
import { templateKey } from "../src/template-key.ts";

async function tableCount(h: DbHandle): Promise<number> {
  const rows = await h.db.execute(
    sql`select count(*)::int as n from information_schema.tables where table_name in ('sessions', 'captures', 'flush_metrics', 'capture_bodies')`,
  );
  return ((Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number }).n;
}

/** The cluster's databases, by name. */
async function databases(h: DbHandle): Promise<string[]> {
  const rows = await h.db.execute(sql`select datname from pg_database order by datname`);
  return (Array.isArray(rows) ? rows : (rows as { rows: { datname: string }[] }).rows).map(
    (r) => (r as { datname: string }).datname,
  );
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).toString());
}

describe("the PGlite template cache", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-template-cache-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("looks in the install's node_modules/.cache first, then $TMPDIR", () => {
    const dirs = templateCacheDirs();
    expect(dirs).toHaveLength(2);
    expect(dirs[0]).toMatch(/\/node_modules\/\.cache\/condense-pglite-templates$/);
    expect(dirs[1]).toBe(join(tmpdir(), "condense-pglite-templates"));
  });

  it("removes the templates of other keys from a cache directory, and nothing else", () => {
    const cache = join(root, "other-keys");
    const key = templateKey();
    const other = key === "0123456789abcdef" ? "fedcba9876543210" : "0123456789abcdef";
    mkdirSync(join(cache, `pglite-${other}`, "base"), { recursive: true });
    writeFileSync(join(cache, `pglite-${other}-ckpt.tar`), "old");
    mkdirSync(join(cache, `pglite-${key}`));
    writeFileSync(join(cache, `pglite-${key}-ckpt.tar`), "current");
    const kept = [`pglite-${other}.staging-123`, `pglite-${other}.lock`, "notes.txt"];
    for (const name of kept) writeFileSync(join(cache, name), "");
    expect(removeStaleTemplates(cache).sort()).toEqual([`pglite-${other}`, `pglite-${other}-ckpt.tar`]);
    expect(readdirSync(cache).sort()).toEqual([...kept, `pglite-${key}`, `pglite-${key}-ckpt.tar`].sort());
    expect(removeStaleTemplates(join(root, "no-such-dir"))).toEqual([]);
  });

  it("builds a missing template in a child process, then finds and uses it without a rebuild", async () => {
    const cache = join(root, "fresh");
    expect(findTemplate("dir", [cache])).toBeNull();
    const made = await ensurePgliteTemplates({ cacheDirs: [cache] });
    expect(made.built).toBe(true);
    expect(made.dir).toBe(templateDirIn(cache));
    expect(made.tarball).toBe(templateTarballIn(cache));
    const marker = JSON.parse(readFileSync(join(made.dir!, TEMPLATE_MARKER), "utf8"));
    expect(marker.key).toBe(templateKey());
    expect(marker.builtBy).not.toBe(process.pid);
    expect(readdirSync(made.dir!)).not.toContain("postmaster.pid");
    // Nothing left beside the two templates (no staging, no lock).
    expect(readdirSync(cache).sort()).toEqual([`pglite-${templateKey()}`, `pglite-${templateKey()}-ckpt.tar`]);

    const tarMtime = statSync(made.tarball!).mtimeMs;
    const again = await ensurePgliteTemplates({ cacheDirs: [cache] });
    expect(again).toEqual({ dir: made.dir, tarball: made.tarball, built: false });

    expect(seedFromTemplate(join(root, "seeded"), [cache])).toBe(true);
    expect(readdirSync(join(root, "seeded"))).not.toContain(TEMPLATE_MARKER);
    const seeded = await createDb(`pglite:${join(root, "seeded")}`);
    const memory = await openMigratedMemoryPglite([cache]);
    try {
      expect(await tableCount(seeded)).toBe(4);
      expect(await tableCount(memory)).toBe(4);
      // Slimmed (TEMPLATE_SLIMMING): the one database Condense uses, no template databases to copy or untar.
      expect(await databases(seeded)).toEqual(["postgres"]);
      expect(await databases(memory)).toEqual(["postgres"]);
      expect(readdirSync(join(made.dir!, "base"))).toHaveLength(1);
    } finally {
      await seeded.close();
      await memory.close();
    }
    expect(statSync(made.tarball!).mtimeMs).toBe(tarMtime);
  }, 240_000);

  it("builds once when two builders start at once; the other waits for it", async () => {
    const cache = join(root, "concurrent");
    const [a, b] = await Promise.all([
      ensurePgliteTemplates({ cacheDirs: [cache], kinds: ["tarball"] }),
      ensurePgliteTemplates({ cacheDirs: [cache], kinds: ["tarball"] }),
    ]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    expect(a.tarball).toBe(templateTarballIn(cache));
    expect(b.tarball).toBe(a.tarball);
    expect(readdirSync(cache)).toEqual([`pglite-${templateKey()}-ckpt.tar`]);
  }, 240_000);

  it("removes a dead builder's staging and lock, keeps a live builder's staging, and skips an unusable cache dir", async () => {
    const blocker = join(root, "a-file");
    writeFileSync(blocker, "not a directory\n");
    const unusable = join(blocker, "cache");
    const cache = join(root, "stale");
    mkdirSync(cache, { recursive: true });
    const key = templateKey();
    const dead = deadPid();
    const deadDir = join(cache, `pglite-${key}.staging-${dead}`);
    mkdirSync(deadDir);
    writeFileSync(join(deadDir, "PG_VERSION"), "17\n");
    const deadTar = join(cache, `pglite-${key}-ckpt.tar.staging-${dead}`);
    writeFileSync(deadTar, "half a tarball");
    const liveTar = join(cache, `pglite-${key}-ckpt.tar.staging-${process.ppid}`);
    writeFileSync(liveTar, "someone else's, still building");
    writeFileSync(join(cache, `pglite-${key}.lock`), `${dead}\n`);

    const made = await ensurePgliteTemplates({ cacheDirs: [unusable, cache], kinds: ["tarball"], waitMs: 60_000 });
    expect(made.built).toBe(true);
    expect(made.tarball).toBe(templateTarballIn(cache));
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(deadTar)).toBe(false);
    expect(existsSync(liveTar)).toBe(true);
    expect(existsSync(join(cache, `pglite-${key}.lock`))).toBe(false);
  }, 240_000);

  it("ignores a template directory without its marker and a tarball that does not load, and replaces both", async () => {
    const cache = join(root, "corrupt");
    const partial = templateDirIn(cache);
    mkdirSync(join(partial, "base"), { recursive: true });
    writeFileSync(join(partial, "PG_VERSION"), "17\n");
    expect(findTemplate("dir", [cache])).toBeNull();
    expect(seedFromTemplate(join(root, "from-partial"), [cache])).toBe(false);
    expect(existsSync(join(root, "from-partial"))).toBe(false);
    const made = await ensurePgliteTemplates({ cacheDirs: [cache], kinds: ["dir"] });
    expect(made.built).toBe(true);
    expect(existsSync(join(partial, TEMPLATE_MARKER))).toBe(true);
    expect(readdirSync(cache)).toEqual([`pglite-${templateKey()}`]);

    const tarball = templateTarballIn(cache);
    // Not a tar at all, then a real one cut short at a block boundary.
    writeFileSync(tarball, Buffer.alloc(4096, 7));
    for (const cut of [false, true]) {
      if (cut) writeFileSync(tarball, readFileSync(tarball).subarray(0, 512 * 400));
      const memory = await openMigratedMemoryPglite([cache]);
      try {
        expect(await tableCount(memory)).toBe(4);
      } finally {
        await memory.close();
      }
      expect(statSync(tarball).size).toBeGreaterThan(1_000_000);
    }
  }, 240_000);
});
