/**
 * The production dependencies of the compiled layout: `pnpm deploy --prod` of DEPLOY_PACKAGE from
 * the workspace lockfile (so the patched postgres.js and the locked versions are what ships), with
 * the hoisted linker so the bundles in <dir>/dist/bin resolve every npm package from <dir>/node_modules
 * the way node resolves them. The workspace packages pnpm copies in are removed: they are TypeScript
 * source, already inlined in the bundles. The project's LICENSE goes along (MIT: the notice travels
 * with every copy).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEPLOY_PACKAGE, REPO_ROOT } from "./compile-dist.ts";

/** The workspace's pnpm (package.json packageManager); the lockfile format is its. */
export const PNPM_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { packageManager: string }
).packageManager.replace(/^pnpm@/, "");

export interface ProdDepsOptions {
  /** Install from the local store only (tests; the image's build stage has just filled it). */
  offline?: boolean;
  /** How to run pnpm; defaults to `pnpm` when the one on PATH is the workspace's version, else `npx -y pnpm@<version>`. */
  pnpm?: string[];
}

export function deployProdDeps(targetDir: string, opts: ProdDepsOptions = {}): void {
  const target = resolve(targetDir);
  if (existsSync(join(target, "node_modules")))
    throw new Error(`${target}/node_modules exists; give an empty directory`);
  const stage = mkdtempSync(join(target, ".deploy-"));
  rmSync(stage, { recursive: true });
  const pnpm =
    opts.pnpm ??
    (spawnSync("pnpm", ["--version"], { encoding: "utf8" }).stdout?.trim() === PNPM_VERSION
      ? ["pnpm"]
      : ["npx", "-y", `pnpm@${PNPM_VERSION}`]);
  const args = [
    ...pnpm.slice(1),
    "--filter",
    DEPLOY_PACKAGE,
    "deploy",
    "--prod",
    // pnpm 10 deploys from the shared lockfile only for injected workspace packages; set for this
    // command alone, so development keeps symlinked workspace packages.
    "--config.inject-workspace-packages=true",
    "--config.node-linker=hoisted",
    ...(opts.offline ? ["--offline"] : []),
    stage,
  ];
  const run = spawnSync(pnpm[0]!, args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
  });
  if (run.status !== 0) throw new Error(`pnpm deploy failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  renameSync(join(stage, "node_modules"), join(target, "node_modules"));
  renameSync(join(stage, "package.json"), join(target, "package.json"));
  rmSync(stage, { recursive: true, force: true });
  rmSync(join(target, "node_modules/@condense"), { recursive: true, force: true });
  rmSync(join(target, "node_modules/.bin/condense"), { force: true });
  copyFileSync(join(REPO_ROOT, "LICENSE"), join(target, "LICENSE"));
}
