/**
 * Seeding a new PGlite data directory from the migrated directory template (pglite-template-cache.ts),
 * so a new database is a directory copy instead of an initdb and the migrations: on this project's
 * 2 vCPU host PGlite's initdb of a fresh directory takes 3-7 s and peaks near 1 GB RSS, a copy and
 * open of the template about 1.5 s and 450 MB.
 *
 * The local service seeds from an existing template (`seedFromTemplate`); with none it has one made in
 * a child process first (ensurePgliteTemplates). Only when that fails too does it run the initdb in its
 * own process, and then keeps its new database, migrated and still empty, as the template
 * (`keepAsMigratedTemplate`), so the next start finds one.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DbHandle } from "./client.ts";
import { copyTree } from "./copy-tree.ts";
import {
  ensurePgliteTemplates,
  findTemplate,
  publishDir,
  TEMPLATE_MARKER,
  templateDirIn,
} from "./pglite-template-cache.ts";
import { TEMPLATE_SLIMMING, templateKey } from "./template-key.ts";

const asList = (cacheDirs: string | readonly string[]) => (typeof cacheDirs === "string" ? [cacheDirs] : cacheDirs);

/**
 * Fills `targetDir` (which must not exist yet) with a copy of the first finished template in
 * `cacheDirs` (true); false, and nothing made or left behind, when there is none or the copy failed.
 */
export function seedFromTemplate(targetDir: string, cacheDirs: string | readonly string[]): boolean {
  const template = findTemplate("dir", asList(cacheDirs));
  if (existsSync(targetDir) || !template) return false;
  try {
    copyTree(template, targetDir, (name) => name === TEMPLATE_MARKER);
    return true;
  } catch {
    rmSync(targetDir, { recursive: true, force: true });
    return false;
  }
}

/**
 * Keeps `handle`, a PGlite directory open in this process, just migrated and with nothing else written
 * yet, as the template in the first of `cacheDirs` that can be written (unless one exists). A
 * CHECKPOINT first puts every page in the files; the copy is taken while this process runs no
 * statement (it is synchronous), and the live instance's postmaster.pid is left out, as in a template
 * made by a closed instance. Like the builder's, it is slimmed first (TEMPLATE_SLIMMING), the open
 * database with it.
 */
export async function keepAsMigratedTemplate(handle: DbHandle, cacheDirs: string | readonly string[]): Promise<void> {
  const dataDir = handle.target.driver === "pglite" ? handle.target.dataDir : undefined;
  if (!dataDir || !handle.pglite) return;
  const dirs = asList(cacheDirs);
  if (findTemplate("dir", dirs)) return;
  // The template is what the builder would make: without the cluster's template databases.
  for (const statement of TEMPLATE_SLIMMING) await handle.pglite.exec(statement);
  await handle.pglite.exec("CHECKPOINT");
  let lastError: unknown;
  for (const cacheDir of dirs) {
    const template = templateDirIn(cacheDir);
    const staging = `${template}.staging-${process.pid}`;
    try {
      mkdirSync(cacheDir, { recursive: true });
      rmSync(staging, { recursive: true, force: true });
      copyTree(dataDir, staging, (name) => name === "postmaster.pid");
      writeFileSync(
        join(staging, TEMPLATE_MARKER),
        `${JSON.stringify({ key: templateKey(), builtBy: process.pid, at: new Date().toISOString() })}\n`,
      );
      publishDir(staging, template);
      return;
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      lastError = err;
    }
  }
  throw lastError;
}

/**
 * Fills `targetDir` (which must not exist yet) with a copy of the migrated template in `cacheDirs`,
 * having it made (in a child process) first when there is none. Returns the template's path.
 */
export async function seedMigratedPglite(targetDir: string, cacheDirs: string | readonly string[]): Promise<string> {
  if (existsSync(targetDir)) throw new Error(`${targetDir} already exists: a template only seeds a new directory`);
  const { dir } = await ensurePgliteTemplates({ cacheDirs: asList(cacheDirs), kinds: ["dir"] });
  if (!dir || !seedFromTemplate(targetDir, cacheDirs)) throw new Error(`no migrated PGlite template could be made`);
  return dir;
}
