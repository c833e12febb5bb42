/** `pnpm docs:env`: writes the env table into docs/operations.md between its markers. */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withEnvTable } from "../src/env-table.ts";

const doc = fileURLToPath(new URL("../../../docs/operations.md", import.meta.url));
const before = readFileSync(doc, "utf8");
const after = withEnvTable(before);
if (after !== before) writeFileSync(doc, after);
console.log(after === before ? "docs/operations.md: env table up to date" : "docs/operations.md: env table written");
