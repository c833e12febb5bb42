/**
 * The per-user local service starts while the agent that needs it runs its first steps, so what it
 * loads at start is kept small: pi-ai (with typebox, ~680 ES modules, about 0.3 s of CPU) is loaded
 * on first use by @condense/summarizer (src/pi-ai.ts), never through a static import on the service's
 * graph, nor in the prebuilt service bundle that the extension starts. The same holds for the CLI,
 * whose `condense replay` is the README's main job: its price model reads pi-ai's catalogue through
 * the same loader.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph } from "./import-graph.ts";

const REPO = join(import.meta.dirname, "../..");
const pi = (spec: string) => spec.startsWith("@mariozechner/");

describe("the local service's start imports", () => {
  it("reach no pi package statically (pi-ai is loaded on first use)", () => {
    const graph = importGraph(join(REPO, "packages/service/src/local-service-main.ts"), { hostProvided: pi });
    expect([...graph.packages].filter(pi)).toEqual([]);
    // The check sees the summarizer, where pi-ai is used.
    expect(graph.packages.has("@condense/summarizer")).toBe(true);
  });

  it("and neither does the prebuilt service bundle, when it is built", () => {
    const bundle = join(REPO, "packages/pi-extension/.prebuilt/dist/service.js");
    if (!existsSync(bundle)) return;
    const source = readFileSync(bundle, "utf8");
    expect([...source.matchAll(/^import .* from "(@mariozechner\/[^"]+)";?$/gm)].map((m) => m[1])).toEqual([]);
    expect(source).toContain('import.meta.resolve("@mariozechner/pi-ai")');
  });

  it("reach no pi package statically from the CLI either", () => {
    const graph = importGraph(join(REPO, "apps/cli/src/main.ts"), { hostProvided: pi });
    expect([...graph.packages].filter(pi)).toEqual([]);
    expect(graph.packages.has("@condense/summarizer")).toBe(true);
  });
});
