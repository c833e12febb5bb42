/** The project is MIT-licensed (LICENSE, "Condense contributors"), and every package says so. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { workspaceManifests } from "../../infra/build/workspace-deps.ts";

const ROOT = join(import.meta.dirname, "../..");

describe("license", () => {
  it("LICENSE is the MIT license held by Condense contributors", () => {
    const text = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(text.split("\n")[0]).toBe("MIT License");
    expect(text).toMatch(/^Copyright \(c\) \d{4} Condense contributors$/m);
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it("the root and every workspace package declare it", () => {
    const manifests = [
      ["(root)", JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license?: string }] as const,
      ...[...workspaceManifests(ROOT).entries()].map(
        ([dir]) =>
          [dir, JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { license?: string }] as const,
      ),
    ];
    expect(manifests.length).toBeGreaterThan(10);
    for (const [dir, m] of manifests) expect(m.license, `${dir}/package.json license`).toBe("MIT");
  });
});
