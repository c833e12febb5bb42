/**
 * The benches' sections of docs/benchmarks.md: a bench owns the section under its own `## ` heading and
 * rewrites it whole on every run, leaving the rest of the page (targets, method, the other benches) as it
 * is; a page without that heading gets the section appended. Benches skip this with `--no-write`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Whether this bench run writes its section (`--no-write` on the command line says no). */
export const writesBenchmarksDoc = (argv: readonly string[] = process.argv): boolean => !argv.includes("--no-write");

/** Replaces the section that starts with `heading` (a `## ` line) by `section`, up to the next `## ` heading. */
export function replaceBenchSection(page: string, heading: string, section: string): string {
  const body = section.startsWith(heading) ? section : `${heading}\n\n${section}`;
  const text = `${body.trimEnd()}\n`;
  const at = page.indexOf(`${heading}\n`);
  if (at === -1) return `${page.trimEnd()}\n\n${text}`;
  const next = page.indexOf("\n## ", at + heading.length);
  return page.slice(0, at) + text + (next === -1 ? "" : `\n${page.slice(next + 1)}`);
}

/** Writes `section` over its own section of the page at `docPath` (created with a title if absent). */
export function writeBenchSection(docPath: string, heading: string, section: string): void {
  const page = existsSync(docPath) ? readFileSync(docPath, "utf8") : "# Benchmarks\n";
  writeFileSync(docPath, replaceBenchSection(page, heading, section));
}
