/**
 * The key of the migrated PGlite templates (pglite-template-cache.ts): the migrations (names and
 * contents) and the PGlite build that writes them (its resolved module path carries the package
 * version), so a new migration or PGlite version makes a new template instead of reusing a stale one.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "./migrate.ts";

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
