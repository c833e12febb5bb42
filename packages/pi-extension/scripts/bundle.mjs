/**
 * `prepack`: the installable pi package. Condense's own workspace packages (@condense/*) are private and
 * referenced as `workspace:*`, which `npm install` cannot resolve, so they are bundled into dist/:
 *   dist/index.js     the extension (what the `pi` manifest points at)
 *   dist/service.js   the per-user local service it starts, detached, on first use (PGlite, worker, API)
 *   migrations/       the database migrations, where the bundled migrator looks for them
 * pi's own packages stay external (peerDependencies: pi provides them to its extensions), and so do
 * third-party runtime packages (`dependencies`, installed by npm), e.g. PGlite, whose WASM files must
 * stay beside its own module. Prints the externals the bundle imports, and fails if one is not declared.
 *
 * The manifest lists both ./src/entry.ts and ./dist/index.js; pi loads the entries that exist. The packed
 * package ships no src/, and `postpack` (`--clean`) removes dist/ again, so in the repository dist/ is
 * never loaded.
 *
 * `--prebuilt` (the root `prepare` script, run by `pnpm install`): the same two bundles into .prebuilt/
 * (git-ignored, never in the manifest) plus .prebuilt/inputs.json, the source files they were built
 * from and when. In the repository src/entry.ts loads .prebuilt/dist/index.js (and so starts the
 * prebuilt service) while none of those files changed since, else the TypeScript source: pi and the
 * service skip transpiling about 100 and 400 modules at every start. A failed prebuilt build only warns,
 * and an install without the sources (the image's dependency layer) skips it (the `prepare` script's test).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkgDir, "../..");
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

const migrationFiles = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name));
const packageName = (spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
const used = new Set();
const externals = {
  name: "externals",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@condense/") || args.path.startsWith("node:") || builtins.has(args.path)) return undefined;
      used.add(packageName(args.path));
      return { path: args.path, external: true };
    });
  },
};

const prebuilt = process.argv.includes("--prebuilt");
const outRoot = prebuilt ? join(pkgDir, ".prebuilt") : pkgDir;
rmSync(join(outRoot, "dist"), { recursive: true, force: true });
rmSync(join(outRoot, "migrations"), { recursive: true, force: true });
if (process.argv.includes("--clean")) process.exit(0);
// Sources changed after this moment make the prebuilt bundle stale (src/entry.ts checks, through @condense/config's prebuilt-freshness).
const builtAt = Date.now();
const result = await build({
  entryPoints: { index: join(pkgDir, "src/index.ts"), service: join(repo, "packages/service/src/local-service-main.ts") },
  outdir: join(outRoot, "dist"),
  metafile: prebuilt,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [externals],
  // The extension starts the service from this file (plain node); bundled, it is the file next to it.
  define: { __CONDENSE_SERVICE_DAEMON__: JSON.stringify("./service.js") },
  banner: { js: "import { createRequire as __condenseCreateRequire } from 'node:module'; const require = __condenseCreateRequire(import.meta.url);" },
  logLevel: "warning",
}).catch((err) => {
  if (!prebuilt) throw err;
  console.warn(`condense: no prebuilt bundle (pi and the service will load the TypeScript source): ${err.message}`);
  process.exit(0);
});
mkdirSync(join(outRoot, "migrations"), { recursive: true });
cpSync(join(repo, "packages/db/migrations"), join(outRoot, "migrations"), { recursive: true });
if (prebuilt) {
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes("node_modules/"))
    .map((f) => relative(repo, resolve(f)))
    .concat(migrationFiles(join(repo, "packages/db/migrations")).map((f) => relative(repo, f)))
    .sort();
  writeFileSync(join(outRoot, "inputs.json"), `${JSON.stringify({ builtAt, inputs }, null, 2)}\n`);
  console.log(`condense prebuilt bundles: ${relative(repo, outRoot)}/dist (${inputs.length} source files)`);
  process.exit(0);
}

const missing = [...used].filter((d) => !declared.has(d)).sort();
console.log(`condense pi package: dist/index.js, dist/service.js, migrations/; external packages: ${[...used].sort().join(", ")}`);
if (missing.length > 0) {
  console.error(`bundle imports packages package.json does not declare: ${missing.join(", ")}`);
  process.exit(1);
}
