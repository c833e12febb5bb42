/**
 * Build commands of the compiled layout (root scripts):
 *   pnpm build:dist [outDir]                 compiled entry points + migrations (default ./dist)
 *   pnpm deploy:prod [--offline] <dir>       production node_modules + package.json into <dir>
 *   pnpm build:runtime [--offline] <dir>     both: <dir>/dist + <dir>/node_modules, what the image's
 *                                            runtime stage holds (run it with `node <dir>/dist/bin/api.js`)
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { compileDist } from "./compile-dist.ts";
import { deployProdDeps } from "./prod-deps.ts";

const [command, ...rest] = process.argv.slice(2);
const offline = rest.includes("--offline");
const dir = rest.find((a) => !a.startsWith("--"));

if (command === "dist") {
  const res = await compileDist(dir ?? "dist");
  console.log(`compiled ${res.bundles.join(", ")} into ${res.outDir} (external: ${res.externals.join(", ")})`);
} else if (command === "prod-deps" || command === "runtime") {
  if (!dir) {
    console.error(`usage: ${command} [--offline] <dir>`);
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  if (command === "runtime") await compileDist(join(dir, "dist"));
  deployProdDeps(dir, { offline });
  console.log(`${command === "runtime" ? "compiled layout" : "production dependencies"} in ${dir}`);
} else {
  console.error("usage: main.ts dist [outDir] | prod-deps [--offline] <dir> | runtime [--offline] <dir>");
  process.exit(2);
}
