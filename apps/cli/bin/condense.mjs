#!/usr/bin/env node
// The `condense` executable (package.json "bin"). The CLI is TypeScript source with no build step:
// tsx's loader is registered in this process (a dev dependency of this package, resolved from it, so it works from any
// directory and never downloads anything), then the CLI runs and exits with its code.
import { register } from "tsx/esm/api";

register();
const { runMain } = await import("../src/main.ts");
await runMain(process.argv.slice(2));
