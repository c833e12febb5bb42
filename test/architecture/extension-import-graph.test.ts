/**
 * The agent's process holds only the client. Following the real imports from the pi extension's entry
 * (packages/pi-extension/src/index.ts), nothing may reach a server dependency: PGlite, Hono, BullMQ,
 * ioredis, pino, prom-client, postgres.js, or the service packages (api, worker, db, queue,
 * summarizer, service), nor zod: of the wire contract only its zod-free vocabulary
 * (`@condense/contract/vocabulary`) runs in the agent, the schemas' types are type-only imports. And
 * no import() may hide a specifier from this check. The same walk over @condense/service shows the
 * check sees those dependencies when they are there. What pi loads from the package (src/entry.ts)
 * reaches the same graph plus one import() of the prebuilt bundle of src/index.ts, whose own imports
 * (when it is built) are checked the same way.
 */
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph } from "./import-graph.ts";

const REPO = join(import.meta.dirname, "../..");
const FORBIDDEN = [
  "@electric-sql/pglite",
  "hono",
  "@hono/node-server",
  "@hono/zod-openapi",
  "bullmq",
  "ioredis",
  "pino",
  "prom-client",
  "postgres",
  "drizzle-orm",
  "zod",
];
const SERVICE_PACKAGES = [
  "@condense/api",
  "@condense/worker",
  "@condense/db",
  "@condense/queue",
  "@condense/summarizer",
  "@condense/service",
];
// pi aliases its own packages for extensions (they are the host, not the extension's closure).
const hostProvided = (spec: string) => spec.startsWith("@mariozechner/");

describe("the pi extension's runtime import graph", () => {
  const graph = importGraph(join(REPO, "packages/pi-extension/src/index.ts"), { hostProvided });

  it("reaches the client, the pure core and the contract's vocabulary, and no server dependency", () => {
    const packages = [...graph.packages].filter((p) => !hostProvided(p)).sort();
    // picomatch is core's glob matcher (protected paths): pure, no I/O, no server code. @condense/config
    // has no dependencies (its env declarations and parser are plain TypeScript).
    expect(packages).toEqual([
      "@condense/client",
      "@condense/config",
      "@condense/contract",
      "@condense/core",
      "picomatch",
    ]);
    const contractFiles = [...graph.files]
      .filter((f) => f.includes("/packages/contract/"))
      .map((f) => f.split("/packages/contract/")[1]);
    expect(contractFiles.sort()).toEqual([
      "src/vocabulary.ts",
      "src/vocabulary/error-codes.ts",
      "src/vocabulary/flush-triggers.ts",
    ]);
    for (const f of FORBIDDEN) expect(graph.packages.has(f), f).toBe(false);
    for (const p of SERVICE_PACKAGES) expect(graph.packages.has(p), p).toBe(false);
    expect([...graph.files].filter((f) => /\/packages\/(api|worker|db|queue|summarizer|service)\//.test(f))).toEqual(
      [],
    );
  });

  it("has no import() the check cannot follow, and resolves every import", () => {
    expect(graph.opaqueImports).toEqual([]);
    expect(graph.unresolved).toEqual([]);
  });

  it("loads the same graph from pi's entry, whose only import() is the prebuilt bundle of it", () => {
    const entry = importGraph(join(REPO, "packages/pi-extension/src/entry.ts"), { hostProvided });
    expect([...entry.packages].sort()).toEqual([...graph.packages].sort());
    expect(entry.opaqueImports).toEqual([`${join(REPO, "packages/pi-extension/src/entry.ts")}: import(bundle)`]);
    const bundle = join(REPO, "packages/pi-extension/.prebuilt/dist/index.js");
    if (!existsSync(bundle)) return;
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const bare = [...readFileSync(bundle, "utf8").matchAll(/^import .* from "([^"]+)";?$/gm)]
      .map((m) => m[1]!)
      .filter((spec) => !builtins.has(spec) && !hostProvided(spec));
    expect([...new Set(bare.map((spec) => spec.split("/")[0]))]).toEqual(["picomatch"]);
    expect(readFileSync(bundle, "utf8")).not.toMatch(/import\(/);
  });

  it("sees server dependencies where they are (the single-process service's graph)", () => {
    const service = importGraph(join(REPO, "packages/service/src/index.ts"), { hostProvided });
    for (const p of ["@electric-sql/pglite", "hono", "pino", "prom-client", "zod", "@condense/api", "@condense/worker"])
      expect(service.packages.has(p), p).toBe(true);
  });
});
