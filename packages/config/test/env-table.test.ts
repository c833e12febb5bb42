import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderEnvTable, VARIABLES, withEnvTable } from "../src/index.ts";

const operations = fileURLToPath(new URL("../../../docs/operations.md", import.meta.url));

describe("the env table of docs/operations.md", () => {
  it("is the one generated from the declarations (run `pnpm docs:env` when this fails)", () => {
    const doc = readFileSync(operations, "utf8");
    expect(withEnvTable(doc)).toBe(doc);
  });

  it("has one row per variable, deprecated names included", () => {
    const table = renderEnvTable();
    for (const [name, v] of Object.entries(VARIABLES)) {
      expect(table).toContain(`| \`${name}\``);
      for (const old of v.deprecatedNames ?? []) expect(table).toContain(`\`${old}\` (deprecated)`);
    }
    expect(table.split("\n")).toHaveLength(Object.keys(VARIABLES).length + 2);
  });

  it("refuses a document without markers", () => {
    expect(() => withEnvTable("# no table here")).toThrow(/markers are missing/);
  });
});
