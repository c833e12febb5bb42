/**
 * A directory tree copied file by file with `copyFileSync` (the kernel copies each file's data), for
 * seeding a PGlite data directory from its template: about 1,100 files and 40 MB. Node 20's
 * `cpSync` does the same in JavaScript with several more system calls and checks per entry: on the
 * 2 vCPU host it took 220-250 ms of CPU for the template against 70-75 ms for this (both measured in
 * one process, `docs/bench-log/2026-12-04-s13-step.md`), at the local service's start, while the
 * agent that started it runs its first steps.
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Copies `src` to `dst` (which must not exist), keeping file and directory modes; entries whose name
 * `skip` accepts are left out (at any depth). Throws on the first failure, leaving what was copied.
 */
export function copyTree(src: string, dst: string, skip: (name: string) => boolean = () => false): void {
  mkdirSync(dst);
  chmodSync(dst, statSync(src).mode & 0o7777);
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const from = join(src, entry.name);
    const to = join(dst, entry.name);
    if (entry.isDirectory()) copyTree(from, to, skip);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
}
