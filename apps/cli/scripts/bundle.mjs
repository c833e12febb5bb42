/**
 * The CLI's prebuilt bundle (the root `prepare` script, run by `pnpm install`): src/main.ts and every
 * workspace module it reaches as one JavaScript file, .prebuilt/dist/main.js, plus .prebuilt/inputs.json
 * (the source files it was built from, the third-party files it imports, and when). bin/condense.mjs
 * runs it while it is fresh (bin/fresh-bundle.mjs), else the TypeScript source through tsx: a command
 * skips transpiling the ~400 modules the CLI reaches at every start.
 *
 * The bundle is a local build artifact (git-ignored, never packed), so it may name this checkout:
 *   - third-party packages stay external, imported from the absolute file each module resolved them to
 *     (pnpm gives each package only its own dependencies, which .prebuilt/ could not resolve);
 *   - `import.meta.url` in each workspace module is its source file's URL, so what is found beside the
 *     source (the migrations, package.json, the service daemon, templates keyed on PGlite's path) is
 *     found exactly as from the source.
 * A failed build only warns (the bin then loads the source), and an install without the sources (the
 * image's dependency layer) skips it (the `prepare` script's test).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(cliDir, "../..");
const outDir = join(cliDir, ".prebuilt");
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const externals = new Set();

const checkoutPaths = {
  name: "checkout-paths",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "resolving" || args.path.startsWith("@condense/")) return undefined;
      if (args.path.startsWith("node:") || builtins.has(args.path)) return { path: args.path, external: true };
      const found = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "resolving",
      });
      if (found.errors.length > 0) return { errors: found.errors };
      externals.add(found.path);
      return { path: found.path, external: true };
    });
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const source = readFileSync(args.path, "utf8");
      return {
        contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
        loader: "ts",
      };
    });
  },
};

rmSync(outDir, { recursive: true, force: true });
// Sources changed after this moment make the bundle stale (bin/fresh-bundle.mjs checks).
const builtAt = Date.now();
const result = await build({
  entryPoints: { main: join(cliDir, "src/main.ts") },
  outdir: join(outDir, "dist"),
  metafile: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [checkoutPaths],
  banner: {
    js: "import { createRequire as __condenseCreateRequire } from 'node:module'; const require = __condenseCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
}).catch((err) => {
  console.warn(`condense: no prebuilt CLI bundle (the CLI will load its TypeScript source): ${err.message}`);
  process.exit(0);
});
const inputs = Object.keys(result.metafile.inputs)
  .filter((f) => !f.includes("node_modules/"))
  .map((f) => relative(repo, resolve(f)))
  .sort();
const manifest = { builtAt, repo, inputs, externals: [...externals].sort() };
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "inputs.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `condense prebuilt CLI: ${relative(repo, outDir)}/dist/main.js (${inputs.length} source files, ${externals.size} external files)`,
);
