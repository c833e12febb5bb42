/** The CLI's version: the `version` of apps/cli/package.json, read once when asked. */
import { readFileSync } from "node:fs";

export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "0.0.0";
}
