/** docs/operations.md documents what the deploy files define: every compose setting, every alert, every build script, every image command. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ENTRIES } from "../../infra/build/compile-dist.ts";

const ROOT = join(import.meta.dirname, "../..");
const read = (p: string) => readFileSync(join(ROOT, p), "utf8");
const doc = read("docs/operations.md");

describe("docs/operations.md", () => {
  it("names every compose setting of .env.example", () => {
    const vars = read(".env.example")
      .split("\n")
      .filter((l) => /^\w+=/.test(l))
      .map((l) => l.slice(0, l.indexOf("=")));
    for (const v of vars) expect(doc, v).toContain(`\`${v}\``);
  });

  it("lists every shipped alert", () => {
    const rules = (
      parseYaml(read("infra/prometheus/alerts.yml")) as { groups: { rules: { alert?: string }[] }[] }
    ).groups.flatMap((g) => g.rules);
    for (const r of rules.filter((x) => x.alert)) expect(doc, r.alert).toContain(`\`${r.alert}\``);
  });

  it("describes the build scripts and the image's commands", () => {
    const scripts = Object.keys(
      (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts,
    ).filter((s) => /^(build|deploy):/.test(s));
    expect(scripts.length).toBe(3);
    for (const s of scripts) expect(doc, s).toContain(`pnpm ${s}`);
    for (const name of Object.keys(ENTRIES)) expect(doc, name).toContain(`dist/bin/${name}.js`);
    expect(doc).toContain("CONDENSE_WORKER_METRICS_HOST");
  });
});
