/** A bench rewrites its own section of the benchmarks page and nothing else. */
import { describe, expect, it } from "vitest";
import { replaceBenchSection, writesBenchmarksDoc } from "../src/benchmarks-doc.ts";

const page = [
  "# Benchmarks",
  "",
  "## Targets",
  "",
  "| t |",
  "",
  "## API (bench:api)",
  "",
  "old api table",
  "",
  "### Earlier",
  "",
  "older api notes",
  "",
  "## Worker (bench:worker)",
  "",
  "worker table",
  "",
].join("\n");

describe("a bench's section of the benchmarks page", () => {
  it("is replaced whole, up to the next section, and the rest is kept byte for byte", () => {
    const out = replaceBenchSection(page, "## API (bench:api)", "## API (bench:api)\n\nnew api table\n\n\n");
    expect(out).toBe(page.replace("old api table\n\n### Earlier\n\nolder api notes\n", "new api table\n"));
    expect(out.match(/## API \(bench:api\)/g)).toHaveLength(1);
  });

  it("a second run replaces the first run's section instead of adding another", () => {
    const once = replaceBenchSection(page, "## API (bench:api)", "run 1");
    const twice = replaceBenchSection(once, "## API (bench:api)", "run 2");
    expect(twice).toBe(replaceBenchSection(page, "## API (bench:api)", "run 2"));
    expect(twice).not.toContain("run 1");
    expect(twice).toContain("## API (bench:api)\n\nrun 2\n\n## Worker (bench:worker)");
  });

  it("the last section is replaced to the end of the page; a missing one is appended", () => {
    expect(replaceBenchSection(page, "## Worker (bench:worker)", "w2")).toBe(page.replace("worker table\n", "w2\n"));
    const added = replaceBenchSection(page, "## Client (bench:client)", "c");
    expect(added).toBe(`${page.trimEnd()}\n\n## Client (bench:client)\n\nc\n`);
  });

  it("a heading that only starts another heading is not that section", () => {
    const p = "# B\n\n## API (bench:api) history\n\nx\n";
    expect(replaceBenchSection(p, "## API (bench:api)", "y")).toBe(`${p.trimEnd()}\n\n## API (bench:api)\n\ny\n`);
  });

  it("--no-write skips the page", () => {
    expect(writesBenchmarksDoc(["node", "bench.ts", "--no-write"])).toBe(false);
    expect(writesBenchmarksDoc(["node", "bench.ts"])).toBe(true);
  });
});
