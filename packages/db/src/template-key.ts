/**
 * The key of the migrated PGlite templates (pglite-template-cache.ts): the migrations (names and
 * contents), the PGlite build that writes them (its resolved module path carries the package
 * version) and what is done after the migrations (TEMPLATE_SLIMMING), so a new migration, PGlite
 * version or slimming makes a new template instead of reusing a stale one.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "./migrate.ts";

/**
 * Run on a template after its migrations: the cluster's two template databases go, so a template holds
 * the one database Condense uses. Postgres needs them only for CREATE DATABASE, which a PGlite
 * database never runs. They were 600 of the template's 1,069 files and 14 MB of its 40: seeding a data
 * directory (a copy, file by file) and loading the tarball (an untar into memory) both cost per file.
 */
export const TEMPLATE_SLIMMING = [
  "alter database template0 is_template false",
  "drop database template0",
  "alter database template1 is_template false",
  "drop database template1",
];

export function templateKey(): string {
  const hash = createHash("sha256");
  hash.update(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  // What is done to a template after its migrations is part of what it is.
  for (const statement of TEMPLATE_SLIMMING) hash.update(statement);
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name))
    .sort();
  for (const file of files) hash.update(file.slice(MIGRATIONS_FOLDER.length)).update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}
