/**
 * Whether the prebuilt bundle (scripts/bundle.mjs --prebuilt, run by `pnpm install`) may stand in for
 * the TypeScript source: .prebuilt/inputs.json lists every source file the bundles were built from
 * (the extension's and the service's) and when; the bundle is used only while each of them still
 * exists and is no newer than that build. Any edit, checkout or pull makes it stale, and the source
 * loads as before until the next install rebuilds it. A stat of each input: a few milliseconds.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

interface PrebuiltInputs {
  builtAt: number;
  inputs: string[];
}

/** `<packageDir>/.prebuilt/dist/index.js` when it is fresh, else null. */
export function freshPrebuiltEntry(packageDir: string): string | null {
  const dir = join(packageDir, ".prebuilt");
  const repo = resolve(packageDir, "../..");
  let manifest: PrebuiltInputs;
  try {
    manifest = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8")) as PrebuiltInputs;
  } catch {
    return null;
  }
  if (typeof manifest.builtAt !== "number" || !Array.isArray(manifest.inputs) || manifest.inputs.length === 0)
    return null;
  const entry = join(dir, "dist/index.js");
  for (const file of [entry, join(dir, "dist/service.js")]) {
    if (statSync(file, { throwIfNoEntry: false }) === undefined) return null;
  }
  for (const input of manifest.inputs) {
    const st = statSync(join(repo, input), { throwIfNoEntry: false });
    if (!st || st.mtimeMs > manifest.builtAt) return null;
  }
  return entry;
}
