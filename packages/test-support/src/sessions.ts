/**
 * Locates the third-party real sessions in ../shared/data/sessions. They are never copied into
 * the project; where they are absent (a user's machine) the suites that need them skip with a notice.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../../..");
export const SHARED_SESSIONS = process.env.CONDENSE_SESSIONS_DIR ?? resolve(REPO_ROOT, "../shared/data/sessions");

export function realSessionFiles(kind: "pi" | "other"): string[] {
  const dir = join(SHARED_SESSIONS, kind);
  if (!existsSync(dir)) {
    console.warn(`[condense] real sessions not found at ${dir}; suites that need them are skipped`);
    return [];
  }
  return readdirSync(dir)
    .filter((f) => !f.startsWith("."))
    .sort()
    .map((f) => join(dir, f));
}
