/**
 * A migrated, empty PGlite data directory kept as a template, so a throwaway database (each `condense
 * replay` makes one) is a directory copy instead of an initdb: on this project's 2 vCPU host PGlite's
 * initdb of a fresh directory takes about 7 s, a copy and open of the template about 1.5 s. The
 * template is keyed by the migrations (names and contents) and by the PGlite build that wrote it
 * (its resolved module path carries the package version), so a new migration or PGlite version makes
 * a new template instead of reusing a stale one. It is written to a staging directory and renamed
 * into place, so a crash or a concurrent writer never leaves a half-made template behind.
 *
 * A process that opens the new directory itself (the local service) does not make the template with
 * a PGlite of its own, which would be a second PGlite start on its first start (38 against 28 s to
 * listening at load 11): it seeds only from an existing template (`seedFromTemplate`) and otherwise
 * keeps its own new database, migrated and still empty, as the template (`keepAsMigratedTemplate`).
 * Either way that first start runs an initdb, which peaks near 1 GB RSS for a few seconds (a start
 * from the template: about 450 MB).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { createDb, type DbHandle } from "./client.ts";
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

const templateDirOf = (cacheDir: string) => join(cacheDir, `pglite-${templateKey()}`);

/** Moves a finished staging copy into place; a template another process put there first is as good. */
function publishTemplate(staging: string, template: string): void {
  try {
    renameSync(staging, template);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(template)) throw err;
  }
}

/**
 * Fills `targetDir` (which must not exist yet) with a copy of the template under `cacheDir` when there
 * is one (true); false, and nothing made or left behind, when there is none or the copy failed.
 */
export function seedFromTemplate(targetDir: string, cacheDir: string): boolean {
  const template = templateDirOf(cacheDir);
  if (existsSync(targetDir) || !existsSync(template)) return false;
  try {
    cpSync(template, targetDir, { recursive: true });
    return true;
  } catch {
    rmSync(targetDir, { recursive: true, force: true });
    return false;
  }
}

/**
 * Keeps `handle`, a PGlite directory open in this process, just migrated and with nothing else written
 * yet, as the template under `cacheDir` (unless one exists). A CHECKPOINT first puts every page in
 * the files; the copy is taken while this process runs no statement (it is synchronous), and the live
 * instance's postmaster.pid is left out, as in a template made by a closed instance.
 */
export async function keepAsMigratedTemplate(handle: DbHandle, cacheDir: string): Promise<void> {
  const dataDir = handle.target.driver === "pglite" ? handle.target.dataDir : undefined;
  if (!dataDir || !handle.pglite) return;
  const template = templateDirOf(cacheDir);
  if (existsSync(template)) return;
  await handle.pglite.exec("CHECKPOINT");
  mkdirSync(cacheDir, { recursive: true });
  const staging = `${template}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    cpSync(dataDir, staging, { recursive: true, filter: (src) => basename(src) !== "postmaster.pid" });
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  publishTemplate(staging, template);
}

/**
 * Fills `targetDir` (which must not exist yet) with a copy of the migrated template under `cacheDir`,
 * making the template first when there is none. Returns the template's path.
 */
export async function seedMigratedPglite(targetDir: string, cacheDir: string): Promise<string> {
  if (existsSync(targetDir)) throw new Error(`${targetDir} already exists: a template only seeds a new directory`);
  const template = templateDirOf(cacheDir);
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
    publishTemplate(staging, template);
  }
  cpSync(template, targetDir, { recursive: true });
  return template;
}
