#!/usr/bin/env node
// The `condense` executable (package.json "bin"). Runs the prebuilt bundle of the CLI (scripts/bundle.mjs,
// built by `pnpm install`) while it is fresh (fresh-bundle.mjs), else the TypeScript source: tsx's loader
// is registered in this process (a dev dependency of this package, resolved from it, so it works from any
// directory and never downloads anything), then the CLI runs and exits with its code.
// `tsx apps/cli/src/main.ts` always runs the source.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { freshCliBundle } from "./fresh-bundle.mjs";

const bundle = freshCliBundle(dirname(dirname(fileURLToPath(import.meta.url))));
let cli;
if (bundle) cli = await import(bundle);
else {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import("../src/main.ts");
}
await cli.runMain(process.argv.slice(2));
