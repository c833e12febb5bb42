/**
 * Compiles the service entry points to plain JavaScript for the image (infra/docker/Dockerfile) and
 * the compiled-layout test: one esbuild bundle per entry under <out>/bin, with every workspace package
 * (they export TypeScript source) inlined and every npm package left as an import, resolved at run
 * time from the production install next to it (see prod-deps.ts). Files read at run time are placed
 * where the bundled code looks for them.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, resolve } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";
import { productionPackages } from "./workspace-deps.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** Bundle name -> entry point. `condense` carries the CLI (migrate, worker with metrics, serve). */
export const ENTRIES: Record<string, string> = {
  api: "apps/api/src/main.ts",
  worker: "apps/worker/src/main.ts",
  condense: "apps/cli/src/main.ts",
};

/** The workspace package whose production install serves every bundle (it depends on all the others). */
export const DEPLOY_PACKAGE = "@condense/cli";

/**
 * Read at run time, relative to the bundle: packages/db/src/migrate.ts resolves `../migrations` from
 * its own module URL, which after bundling is <out>/bin/<name>.js, so the SQL files and drizzle's
 * journal go to <out>/migrations.
 */
export const RUNTIME_FILES: { from: string; to: string }[] = [{ from: "packages/db/migrations", to: "migrations" }];

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

// Workspace packages are bundled (their `exports` point at .ts files node cannot run); everything
// else stays external so native and wasm packages (PGlite, msgpackr) load their own files.
const externalNpm: Plugin = {
  name: "external-npm",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@condense/")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

export interface DistBuild {
  outDir: string;
  bundles: string[];
  externals: string[];
}

export async function compileDist(outDir: string): Promise<DistBuild> {
  const out = resolve(outDir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, "bin"), { recursive: true });
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, join(REPO_ROOT, entry)])),
    outdir: join(out, "bin"),
    bundle: true,
    platform: "node",
    format: "esm",
    // The oldest Node the workspace supports (package.json engines); the image runs a newer LTS.
    target: "node20.19",
    sourcemap: true,
    metafile: true,
    logLevel: "warning",
    plugins: [externalNpm],
  });
  const externals = externalPackages(result.metafile);
  // A bundle importing a package that is only a devDependency would start in CI (where everything is
  // installed) and crash in the image: refuse to build instead.
  const prod = productionPackages(DEPLOY_PACKAGE);
  const missing = externals.filter((p) => !prod.has(p));
  if (missing.length > 0) {
    throw new Error(
      `the bundles import ${missing.join(", ")}, which ${DEPLOY_PACKAGE}'s production dependencies do not include; add them to the dependencies of the workspace package that imports them`,
    );
  }
  for (const name of Object.keys(ENTRIES)) {
    // The CLI entry's `#!/usr/bin/env -S npx tsx` line would survive bundling; compiled code runs on node.
    const file = join(out, "bin", `${name}.js`);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.startsWith("#!") ? `#!/usr/bin/env node\n${text.slice(text.indexOf("\n") + 1)}` : text);
  }
  for (const f of RUNTIME_FILES) {
    const from = join(REPO_ROOT, f.from);
    if (!existsSync(from)) throw new Error(`${f.from} is read at run time but does not exist`);
    cpSync(from, join(out, f.to), { recursive: true });
  }
  writeFileSync(join(out, "externals.json"), `${JSON.stringify(externals, null, 2)}\n`);
  return {
    outDir: out,
    bundles: Object.keys(ENTRIES).map((n) => relative(out, join(out, "bin", `${n}.js`))),
    externals,
  };
}

/** npm packages the bundles import (static and literal dynamic imports), builtins excluded. */
function externalPackages(meta: Metafile): string[] {
  const names = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    for (const imp of output.imports) {
      if (!imp.external || BUILTINS.has(imp.path)) continue;
      names.add(packageName(imp.path));
    }
  }
  return [...names].sort();
}
