/** The npm packages a workspace package needs in production: its own and its workspace dependencies' `dependencies`. */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";

const ROOT = resolve(import.meta.dirname, "../..");

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** Directory (relative to the root) -> manifest, for every package the workspace globs match. */
export function workspaceManifests(root = ROOT): Map<string, Manifest> {
  const globs = (parseYaml(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")) as { packages: string[] }).packages;
  const out = new Map<string, Manifest>();
  for (const g of globs) {
    const dirs = g.endsWith("/*")
      ? readdirSync(join(root, g.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${g.slice(0, -2)}/${e.name}`)
      : [g];
    for (const d of dirs) {
      const file = join(root, d, "package.json");
      if (existsSync(file)) out.set(d, JSON.parse(readFileSync(file, "utf8")) as Manifest);
    }
  }
  return out;
}

export function productionPackages(packageName: string, root = ROOT): Set<string> {
  const byName = new Map([...workspaceManifests(root).values()].map((m) => [m.name, m]));
  const npm = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const m = byName.get(name);
    if (!m) throw new Error(`${name} is not a workspace package`);
    for (const dep of Object.keys(m.dependencies ?? {})) {
      if (byName.has(dep)) visit(dep);
      else npm.add(dep);
    }
  };
  visit(packageName);
  return npm;
}
