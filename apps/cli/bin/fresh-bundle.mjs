/**
 * Whether the CLI's prebuilt bundle (scripts/bundle.mjs, run by `pnpm install`) may stand in for the
 * TypeScript source. .prebuilt/inputs.json lists every source file the bundle was built from, the
 * third-party files it imports, the checkout it was built in, and when. The bundle is used only while
 * it was built in this checkout, each source file still exists and is no newer than that build, and
 * each imported file still exists: any edit, checkout or pull (or an install that replaced packages)
 * makes it stale, and the source loads as before until the next install rebuilds it. Plain JavaScript:
 * it runs before anything can load TypeScript. A stat of each file: a few milliseconds.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * `<cliDir>/.prebuilt/dist/main.js` when it is fresh, else null.
 * @param {string} cliDir the CLI package's directory (apps/cli)
 * @returns {string | null}
 */
export function freshCliBundle(cliDir) {
  const dir = join(cliDir, ".prebuilt");
  const repo = resolve(cliDir, "../..");
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8"));
  } catch {
    return null;
  }
  const { builtAt, inputs, externals } = manifest ?? {};
  if (typeof builtAt !== "number" || manifest.repo !== repo) return null;
  if (!Array.isArray(inputs) || inputs.length === 0 || !Array.isArray(externals)) return null;
  const entry = join(dir, "dist/main.js");
  if (statSync(entry, { throwIfNoEntry: false }) === undefined) return null;
  for (const input of inputs) {
    const st = statSync(join(repo, input), { throwIfNoEntry: false });
    if (!st || st.mtimeMs > builtAt) return null;
  }
  for (const file of externals) {
    if (statSync(file, { throwIfNoEntry: false }) === undefined) return null;
  }
  return entry;
}
