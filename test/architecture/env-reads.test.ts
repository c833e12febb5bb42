/**
 * One configuration module: no shipped source file outside packages/config reads the environment.
 * Every variable is declared in packages/config/src/variables.ts and reaches code through a view
 * (apiConfig, workerConfig, ...) of an env object; entry points take theirs from config's processEnv().
 * Shipped source is apps/<app>/{src,bin} and packages/<pkg>/{src,bin,scripts}; tests, benches and
 * build tooling (infra/, drizzle.config.ts) set up their own processes and are not checked.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "../..");
const SHIPPED = ["src", "bin", "scripts"];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules") continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (/\.(c|m)?(t|j)sx?$/.test(e.name)) out.push(p);
  }
  return out;
}

function shippedFiles(): string[] {
  const out: string[] = [];
  for (const top of ["apps", "packages"]) {
    for (const pkg of readdirSync(join(REPO, top))) {
      // config owns the reads; test-support is never shipped (devDependencies only, a layering test holds it).
      if (top === "packages" && (pkg === "config" || pkg === "test-support")) continue;
      for (const sub of SHIPPED) {
        const dir = join(REPO, top, pkg, sub);
        if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) out.push(...files(dir));
      }
    }
  }
  return out;
}

/** `process.env`, `process["env"]`, `globalThis.process.env`, or `env` taken from node:process. */
const ENV_READ =
  /\bprocess\s*(\.\s*env\b|\[\s*["'`]env["'`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*from\s*["'`](node:)?process["'`]/;

export function envReads(text: string): string[] {
  return text
    .split("\n")
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter(({ line }) => !line.startsWith("//") && !line.startsWith("*") && ENV_READ.test(line))
    .map(({ line, n }) => `${n}: ${line}`);
}

describe("env reads", () => {
  it("finds the shipped sources (apps and packages)", () => {
    const all = shippedFiles().map((f) => relative(REPO, f));
    expect(all).toEqual(
      expect.arrayContaining([
        "apps/api/src/main.ts",
        "apps/worker/src/main.ts",
        "apps/cli/src/main.ts",
        "packages/service/src/local-service-main.ts",
        "packages/pi-extension/src/index.ts",
      ]),
    );
    expect(all.some((f) => f.startsWith("packages/config/"))).toBe(false);
  });

  it("recognises a read of the environment in its usual spellings", () => {
    expect(envReads("const p = process.env.PORT;")).toHaveLength(1);
    expect(envReads('const e = process["env"];')).toHaveLength(1);
    expect(envReads("spawn(x, { env: { ...process.env } });")).toHaveLength(1);
    expect(envReads('import { env } from "node:process";')).toHaveLength(1);
    expect(envReads("const env = processEnv();\n// process.env is read in config only")).toEqual([]);
  });

  it("no shipped source file outside packages/config reads process.env", () => {
    const offenders = shippedFiles().flatMap((f) =>
      envReads(readFileSync(f, "utf8")).map((hit) => `${relative(REPO, f)}:${hit}`),
    );
    expect(offenders).toEqual([]);
  });
});
