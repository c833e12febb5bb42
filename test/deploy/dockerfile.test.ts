/**
 * infra/docker/Dockerfile against the tree, both ways, without a Docker engine: every COPY source
 * exists in the build context (and is not filtered out by the .dockerignore), and everything
 * `pnpm install --frozen-lockfile` reads (the workspace files, every workspace package's manifest,
 * the patches the workspace names) is copied before the install runs. The stages: a build stage that
 * compiles, a prod-deps stage from `pnpm deploy --prod`, and a runtime stage on a current Node LTS
 * holding only their outputs, run as a non-root user with plain node.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ENTRIES } from "../../infra/build/compile-dist.ts";
import { workspaceManifests } from "../../infra/build/workspace-deps.ts";
import { parseDockerfile } from "./support/dockerfile.ts";

const ROOT = join(import.meta.dirname, "../..");
const read = (p: string) => readFileSync(join(ROOT, p), "utf8");

/** COPY [--from=x] [--chown=...] src... dest -> { from, sources, dest }. */
function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.startsWith("[") ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith("--"));
  const paths = words.filter((w) => !w.startsWith("--"));
  const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length);
  return { ...(from ? { from } : {}), sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** .dockerignore pattern -> RegExp over context-relative paths (`*`, `**`, and a match covering everything under it). */
function ignoreMatcher(pattern: string): RegExp {
  const body = pattern
    .replace(/^\/+|\/+$/g, "")
    .split("**/")
    .map((part) =>
      part
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join("(?:.*/)?");
  return new RegExp(`^${body}(?:/.*)?$`);
}

const dockerfilePath = "infra/docker/Dockerfile";
const { instructions, args } = parseDockerfile(read(dockerfilePath));
const stages = instructions.filter((i) => i.op === "FROM");
const copies = instructions.filter((i) => i.op === "COPY").map((i) => ({ ...i, copy: parseCopy(i.args) }));
const installIndex =
  instructions.find((i) => i.op === "RUN" && /pnpm install --frozen-lockfile/.test(i.args))?.index ?? -1;
const ignored = read(`${dockerfilePath}.dockerignore`)
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"));
const expandArgs = (s: string) => s.replace(/\$\{(\w+)\}/g, (_, k: string) => args[k] ?? `\${${k}}`);

describe("infra/docker/Dockerfile", () => {
  it("has build, prod-deps and runtime stages; every base image is a current Node LTS slim image", () => {
    expect(stages.map((s) => s.stage)).toEqual(["build", "prod-deps", "runtime"]);
    for (const s of stages) {
      const image = expandArgs(s.args.split(/\s+/)[0]!);
      if (image === "build") continue;
      expect(image, `FROM ${s.args}`).toMatch(/^node:(22|24)(\.\d+)*-(bookworm-|trixie-)?slim$/);
    }
  });

  it("every COPY source exists in the build context and survives the .dockerignore", () => {
    const stageNames = new Set(stages.map((s) => s.stage));
    for (const c of copies) {
      if (c.copy.from) {
        expect(stageNames.has(c.copy.from), `COPY --from=${c.copy.from} names a stage`).toBe(true);
        continue;
      }
      for (const src of c.copy.sources) {
        if (src === ".") continue;
        expect(existsSync(join(ROOT, src)), `COPY ${src}: exists`).toBe(true);
        const rel = src.replace(/\/+$/, "");
        for (const p of ignored)
          expect(ignoreMatcher(p).test(rel), `COPY ${src} is excluded by .dockerignore pattern ${p}`).toBe(false);
      }
    }
  });

  it("copies everything the frozen install reads before it runs: workspace files, every manifest, the patches", () => {
    expect(installIndex).toBeGreaterThan(0);
    const before = copies
      .filter((c) => c.index < installIndex && !c.copy.from)
      .flatMap((c) => c.copy.sources.map((s) => s.replace(/\/+$/, "")));
    expect(before).not.toContain(".");
    const covered = (path: string) => before.some((s) => path === s || path.startsWith(`${s}/`));
    for (const f of [
      "package.json",
      "pnpm-lock.yaml",
      "pnpm-workspace.yaml",
      ...[".npmrc", ".pnpmfile.cjs"].filter((f) => existsSync(join(ROOT, f))),
    ]) {
      expect(covered(f), `${f} copied before install`).toBe(true);
    }
    const dirs = [...workspaceManifests(ROOT).keys()];
    expect(dirs.length).toBeGreaterThan(5);
    for (const d of dirs) expect(covered(`${d}/package.json`), `${d}/package.json copied before install`).toBe(true);
    // The other direction: a manifest copied before install must be a workspace package's.
    for (const s of before.filter((p) => p.endsWith("/package.json")))
      expect(dirs, `${s} is a workspace package`).toContain(s.slice(0, -"/package.json".length));
    const workspace = parseYaml(read("pnpm-workspace.yaml")) as { patchedDependencies?: Record<string, string> };
    const patches = Object.values(workspace.patchedDependencies ?? {});
    for (const p of patches) {
      expect(existsSync(join(ROOT, p)), `${p} exists`).toBe(true);
      expect(covered(p), `${p} copied before install`).toBe(true);
    }
    // The full source arrives after the install, so a source-only change reuses the install layer.
    const all = copies.find((c) => c.stage === "build" && c.copy.sources.includes("."));
    expect(all?.index).toBeGreaterThan(installIndex);
  });

  it("pins pnpm to the workspace's packageManager without corepack", () => {
    const pm = (JSON.parse(read("package.json")) as { packageManager: string }).packageManager;
    const env = instructions
      .filter((i) => i.op === "ENV" && i.stage === "build")
      .map((i) => i.args)
      .join(" ");
    expect(env).toContain(`PNPM_VERSION=${pm.slice("pnpm@".length)}`);
    expect(instructions.some((i) => i.op === "RUN" && /corepack/.test(i.args))).toBe(false);
  });

  it("build runs build:dist, prod-deps runs deploy:prod, and the runtime copies exactly their outputs", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const runIn = (stage: string, script: string) => {
      const r = instructions.find((i) => i.op === "RUN" && i.stage === stage && i.args.includes(`pnpm run ${script} `));
      expect(r, `${stage} runs pnpm run ${script}`).toBeDefined();
      expect(scripts[script], `root script ${script}`).toMatch(/^tsx infra\/build\/main\.ts /);
      return r!.args.split(/\s+/).at(-1)!;
    };
    const distOut = runIn("build", "build:dist");
    const depsOut = runIn("prod-deps", "deploy:prod");
    expect(existsSync(join(ROOT, "infra/build/main.ts"))).toBe(true);
    const runtimeCopies = copies.filter((c) => c.stage === "runtime");
    expect(
      runtimeCopies.every((c) => c.copy.from),
      "the runtime copies nothing from the source tree",
    ).toBe(true);
    expect(runtimeCopies.map((c) => [c.copy.from, c.copy.sources.join(" ").replace(/\/+$/, "")]).sort()).toEqual(
      [
        ["build", distOut],
        ["prod-deps", depsOut],
      ].sort(),
    );
  });

  it("the runtime runs compiled code as a non-root user: node on a bundle, no tsx", () => {
    const runtime = instructions.filter((i) => i.stage === "runtime");
    const user = runtime.filter((i) => i.op === "USER").at(-1);
    expect(user?.args).toBeDefined();
    expect(user!.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = JSON.parse(runtime.find((i) => i.op === "CMD")!.args) as string[];
    expect(cmd[0]).toBe("node");
    expect(Object.keys(ENTRIES).map((n) => `dist/bin/${n}.js`)).toContain(cmd[1]);
    expect(instructions.map((i) => i.args).join("\n")).not.toMatch(/\btsx\b.*\.ts/);
  });
});
