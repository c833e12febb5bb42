/**
 * A migrated, empty PGlite data directory kept as a template, so a throwaway database (each `condense
 * replay` makes one) is a directory copy instead of an initdb: on this project's 2 vCPU host PGlite's
 * initdb of a fresh directory takes about 7 s, a copy and open of the template about 1.5 s. The
 * template is keyed by the migrations (names and contents) and by the PGlite build that wrote it
 * (its resolved module path carries the package version), so a new migration or PGlite version makes
 * a new template instead of reusing a stale one. It is written to a staging directory and renamed
 * into place, so a crash or a concurrent writer never leaves a half-made template behind.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createDb } from "./client.ts";
import { MIGRATIONS_FOLDER, migrateDb } from "./migrate.ts";

export function templateKey(): string {
  const hash = createHash("sha256");
  hash.update(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name))
    .sort();
  for (const file of files) hash.update(file.slice(MIGRATIONS_FOLDER.length)).update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Fills `targetDir` (which must not exist yet) with a copy of the migrated template under `cacheDir`,
 * making the template first when there is none. Returns the template's path.
 */
export async function seedMigratedPglite(targetDir: string, cacheDir: string): Promise<string> {
  if (existsSync(targetDir)) throw new Error(`${targetDir} already exists: a template only seeds a new directory`);
  const template = join(cacheDir, `pglite-${templateKey()}`);
  if (!existsSync(template)) {
    mkdirSync(cacheDir, { recursive: true });
    const staging = `${template}.staging-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    const db = await createDb(`pglite:${staging}`);
    try {
      await migrateDb(db);
    } finally {
      await db.close();
    }
    try {
      renameSync(staging, template);
    } catch (err) {
      // Another process made the same template first: theirs is as good as ours.
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(template)) throw err;
    }
  }
  cpSync(template, targetDir, { recursive: true });
  return template;
}
