/**
 * Whether a prebuilt bundle may stand in for the TypeScript source it was built from: the one rule for
 * the pi extension's bundles (its src/entry.ts) and the CLI's (its bin/fresh-bundle.mjs), the other half
 * of the choice CONDENSE_EXTENSION_SOURCE forces. A bundle script writes <packageDir>/.prebuilt/inputs.json:
 * when it built (`builtAt`), every source file it read (`inputs`, relative to the repository) and, for a
 * bundle that imports third-party files at run time, those files (`externals`, absolute) and the checkout
 * it was built in (`repo`). The bundle is fresh while its outputs exist and every input exists and is no
 * newer than the build; with `sameCheckout`, also only in the checkout that built it and while every
 * external still exists. Any edit, checkout or pull (or an install that replaced packages) makes it
 * stale, and the source loads until the next install rebuilds it. Plain JavaScript: the CLI runs it
 * before anything can load TypeScript. A stat of each file: a few milliseconds.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const exists = (file) => statSync(file, { throwIfNoEntry: false }) !== undefined;

/**
 * The first of `check.outputs` (relative to <packageDir>/.prebuilt) when the bundle is fresh, else null.
 * @param {string} packageDir a package directory two levels below the repository root
 * @param {{ outputs: string[]; sameCheckout?: boolean }} check
 * @returns {string | null}
 */
export function freshPrebuilt(packageDir, check) {
  const dir = join(packageDir, ".prebuilt");
  const repo = resolve(packageDir, "../..");
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8"));
  } catch {
    return null;
  }
  const { builtAt, inputs, externals } = manifest ?? {};
  if (typeof builtAt !== "number" || !Array.isArray(inputs) || inputs.length === 0) return null;
  if (check.sameCheckout && (manifest.repo !== repo || !Array.isArray(externals))) return null;
  const outputs = check.outputs.map((f) => join(dir, f));
  if (!outputs.every(exists)) return null;
  for (const input of inputs) {
    const st = statSync(join(repo, input), { throwIfNoEntry: false });
    if (!st || st.mtimeMs > builtAt) return null;
  }
  if (check.sameCheckout && !externals.every(exists)) return null;
  return outputs[0] ?? null;
}
