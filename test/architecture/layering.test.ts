/**
 * Layers point one way: packages never depend on or import an app (`apps/*`: entry points, the CLI).
 * Checked on each package's package.json and on every import specifier in its sources, tests and
 * benches (a package name of an app, or a relative path that leaves the package into apps/).
 * Test support stays out of what runs: `@condense/test-support` is only ever a devDependency and no
 * `src/` file imports it; and suites share support through it, never by a relative path into another
 * package's `test/` folder.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "../..");
const APPS_DIR = join(REPO, "apps");
const PACKAGES_DIR = join(REPO, "packages");
const appNames = readdirSync(APPS_DIR).map(
  (d) => (JSON.parse(readFileSync(join(APPS_DIR, d, "package.json"), "utf8")) as { name: string }).name,
);
const packageDirs = readdirSync(PACKAGES_DIR).filter((d) => statSync(join(PACKAGES_DIR, d)).isDirectory());

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules") continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(c|m)?(t|j)s$/.test(e.name)) out.push(p);
  }
  return out;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["'`]([^"'`]+)["'`]/gm;

export function appImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const bad: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1]!;
    const toApp =
      appNames.some((n) => spec === n || spec.startsWith(`${n}/`)) ||
      (spec.startsWith(".") && resolve(dirname(file), spec).startsWith(`${APPS_DIR}/`));
    if (toApp) bad.push(`${relative(REPO, file)}: ${spec}`);
  }
  return bad;
}

describe("layering: packages never depend on apps", () => {
  it("knows the apps and the packages", () => {
    expect(appNames).toEqual(expect.arrayContaining(["@condense/cli", "@condense/api-main", "@condense/worker-main"]));
    expect(packageDirs).toEqual(expect.arrayContaining(["client", "core", "service", "pi-extension"]));
  });

  it.each(packageDirs)("packages/%s lists no app among its dependencies", (dir) => {
    const pkg = JSON.parse(readFileSync(join(PACKAGES_DIR, dir, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    const deps = Object.keys({
      ...pkg.dependencies,
      ...pkg.devDependencies,
      ...pkg.peerDependencies,
      ...pkg.optionalDependencies,
    });
    expect(deps.filter((d) => appNames.includes(d))).toEqual([]);
  });

  it.each(packageDirs)("packages/%s imports nothing from apps/", (dir) => {
    expect(sourceFiles(join(PACKAGES_DIR, dir)).flatMap(appImports)).toEqual([]);
  });

  it("the check sees an import of an app", () => {
    // apps/cli imports its own files relatively; seen from inside apps/ every such import counts.
    expect(appImports(join(APPS_DIR, "cli/src/main.ts")).length).toBeGreaterThan(0);
  });
});

const TEST_SUPPORT = "@condense/test-support";
const workspaceDirs = [
  ...packageDirs.map((d) => join(PACKAGES_DIR, d)),
  ...readdirSync(APPS_DIR).map((d) => join(APPS_DIR, d)),
  join(REPO, "test"),
];

function specifiers(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(SPECIFIER)].map((m) => m[1]!);
}

/** Of the specifiers `specs` in `file`, the relative paths into the `test/` folder of another workspace package than `home`. */
export function foreignTestImports(file: string, home: string, specs = specifiers(file)): string[] {
  return specs
    .filter((spec) => {
      if (!spec.startsWith(".")) return false;
      const target = resolve(dirname(file), spec);
      if (target.startsWith(`${home}/`)) return false;
      return workspaceDirs.some((w) => target.startsWith(`${w === join(REPO, "test") ? w : join(w, "test")}/`));
    })
    .map((spec) => `${relative(REPO, file)}: ${spec}`);
}

describe("layering: test support is for tests only", () => {
  it.each(workspaceDirs.map((d) => relative(REPO, d)))("%s lists test-support only under devDependencies", (dir) => {
    const pkg = JSON.parse(readFileSync(join(REPO, dir, "package.json"), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"])
      expect(Object.keys(pkg[field] ?? {}), `${dir} ${field}`).not.toContain(TEST_SUPPORT);
  });

  it.each(workspaceDirs.map((d) => relative(REPO, d)))("no file under %s/src imports test-support", (dir) => {
    const src = join(REPO, dir, "src");
    const files = dir === "packages/test-support" ? [] : statSafe(src) ? sourceFiles(src) : [];
    const bad = files.flatMap((f) =>
      specifiers(f)
        .filter((s) => s === TEST_SUPPORT || s.startsWith(`${TEST_SUPPORT}/`) || s.includes("test-support/"))
        .map((s) => `${relative(REPO, f)}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  it.each(workspaceDirs.map((d) => relative(REPO, d)))(
    "the suites of %s reach no other package's test folder by a relative path",
    (dir) => {
      const home = join(REPO, dir);
      // the root test package's suites are the folder itself
      const tests = dir === "test" ? home : join(home, "test");
      const files = statSafe(tests) ? sourceFiles(tests) : [];
      expect(files.flatMap((f) => foreignTestImports(f, home))).toEqual([]);
    },
  );

  it("the check sees a relative import into another package's test folder, and not one into its own", () => {
    const worker = join(PACKAGES_DIR, "worker");
    const probe = join(worker, "test/probe.test.ts");
    expect(foreignTestImports(probe, worker, ["../../summarizer/test/support/fake-provider.ts"])).toHaveLength(1);
    expect(foreignTestImports(probe, worker, ["../../../test/global-setup.ts"])).toHaveLength(1);
    expect(foreignTestImports(probe, worker, ["./support/suite-database.ts", "../src/index.ts"])).toEqual([]);
    const rootSuite = join(REPO, "test/integration/probe.test.ts");
    expect(foreignTestImports(rootSuite, join(REPO, "test"), ["../../packages/worker/test/support/x.ts"])).toHaveLength(
      1,
    );
    expect(foreignTestImports(rootSuite, join(REPO, "test"), ["../support/x.ts"])).toEqual([]);
  });
});

function statSafe(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
