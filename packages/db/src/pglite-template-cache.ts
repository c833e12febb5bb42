/**
 * Where the migrated PGlite templates live, and how they are made ahead of need. Two templates, keyed
 * by the migrations and the PGlite build (templateKey):
 *   - `pglite-<key>/`            a migrated, empty data directory (the local service seeds its own
 *                                database from a copy of it), with `condense-template.json` inside;
 *   - `pglite-<key>-ckpt.tar`    the same database as a PGlite dump (`condense replay` loads it in memory).
 * They are looked up in each cache directory in turn (templateCacheDirs): first `node_modules/.cache/
 * condense-pglite-templates` of the install PGlite resolves from (one per checkout or install, made by
 * the root `prepare` script at `pnpm install`), then `$TMPDIR/condense-pglite-templates`.
 *
 * A missing template is made in a short-lived child process (an initdb peaks near 1 GB RSS for a few
 * seconds; the process that asked never carries it): into `<name>.staging-<pid>`, published by a rename,
 * so no reader ever sees half a template. A directory without its marker file is not a template (a
 * copy cut short, or one made before the marker) and is replaced. Builders take `pglite-<key>.lock`
 * (O_EXCL, holding their pid): a second builder waits for the first instead of running a second
 * initdb, and takes over a lock whose holder died. Staging leftovers of dead builders are removed. A
 * cache directory that cannot be written (read-only, missing parent) is skipped for the next one.
 */
import { spawn } from "node:child_process";
import { processEnv } from "@condense/config";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import { TEMPLATE_SLIMMING, templateKey } from "./template-key.ts";

export const TEMPLATE_MARKER = "condense-template.json";

/** The cache directories, in lookup order: the install's `node_modules/.cache`, then `$TMPDIR`. */
export function templateCacheDirs(): string[] {
  const dirs: string[] = [];
  const resolved = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const at = resolved.indexOf("/node_modules/");
  if (at >= 0) dirs.push(join(resolved.slice(0, at), "node_modules", ".cache", "condense-pglite-templates"));
  dirs.push(join(tmpdir(), "condense-pglite-templates"));
  return dirs;
}

/**
 * Removes the templates of other keys (older migrations, another PGlite build, another slimming) from
 * `cacheDir`, keeping this key's, staging entries and locks. For an install's own cache directory
 * only (`pnpm install` calls it there): each schema change otherwise leaves about 70 MB behind. The
 * `$TMPDIR` cache is shared by every checkout on the machine, whose keys differ, and is left alone.
 * Returns the names removed.
 */
export function removeStaleTemplates(cacheDir: string): string[] {
  const current = templateKey();
  return removeEntries(cacheDir, (name) => {
    const m = /^pglite-([0-9a-f]{16})(?:-ckpt\.tar)?$/.exec(name);
    return m !== null && m[1] !== current;
  });
}

/** Removes the entries of `cacheDir` whose name `stale` accepts; returns their names. */
function removeEntries(cacheDir: string, stale: (name: string) => boolean): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!stale(name)) continue;
    try {
      rmSync(join(cacheDir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* in use, someone else's, or already gone: left for the next pass */
    }
  }
  return removed;
}

export const templateDirIn = (cacheDir: string) => join(cacheDir, `pglite-${templateKey()}`);
// "-ckpt": tarballs made before the dumps were taken after a CHECKPOINT (same key) are not reused.
export const templateTarballIn = (cacheDir: string) => join(cacheDir, `pglite-${templateKey()}-ckpt.tar`);

/** A finished directory template: it has its marker (written last, before the rename). */
export function isDirTemplate(dir: string): boolean {
  return existsSync(join(dir, TEMPLATE_MARKER)) && existsSync(join(dir, "PG_VERSION"));
}

function isTarball(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

export type TemplateKind = "dir" | "tarball";

/** The first finished template of `kind` in `cacheDirs`, or null. */
export function findTemplate(kind: TemplateKind, cacheDirs: readonly string[]): string | null {
  for (const cacheDir of cacheDirs) {
    const path = kind === "dir" ? templateDirIn(cacheDir) : templateTarballIn(cacheDir);
    if (kind === "dir" ? isDirTemplate(path) : isTarball(path)) return path;
  }
  return null;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes `*.staging-<pid>` and `*.stale-<pid>` entries of processes that no longer run. */
export function removeDeadStaging(cacheDir: string): string[] {
  return removeEntries(cacheDir, (name) => {
    const m = /\.(?:staging|stale)-(\d+)$/.exec(name);
    return m !== null && !alive(Number(m[1]));
  });
}

/** Takes the build lock of `cacheDir` (true), or reports who holds it; a dead holder's lock is taken over. */
function tryLock(lockFile: string): { held: true } | { held: false; holder: number } {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx" });
      return { held: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder = 0;
    try {
      holder = Number(readFileSync(lockFile, "utf8").trim());
    } catch {
      continue; // released meanwhile
    }
    if (alive(holder)) return { held: false, holder };
    try {
      unlinkSync(lockFile);
    } catch {
      /* another waiter took it over first */
    }
  }
  return { held: false, holder: 0 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The child: plain JavaScript on Node, PGlite and drizzle's migrator resolved from this module, so it runs
// the same in every layout (source, prebuilt bundle, packed package) with no file of its own to ship.
const BUILDER = `
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
const a = JSON.parse(process.argv[process.argv.length - 1]);
const req = createRequire(a.resolveFrom);
const { PGlite } = req("@electric-sql/pglite");
const { drizzle } = req("drizzle-orm/pglite");
const { migrate } = req("drizzle-orm/pglite/migrator");
const pg = a.dir ? new PGlite({ dataDir: a.dir }) : new PGlite();
await pg.waitReady;
await migrate(drizzle({ client: pg }), { migrationsFolder: a.migrations });
for (const statement of a.slim) await pg.exec(statement);
await pg.exec("CHECKPOINT");
if (a.tarball) writeFileSync(a.tarball, Buffer.from(await (await pg.dumpDataDir("none")).arrayBuffer()));
await pg.close();
if (a.dir) writeFileSync(join(a.dir, "${TEMPLATE_MARKER}"), JSON.stringify({ key: a.key, builtBy: process.pid, at: new Date().toISOString() }) + "\\n");
`;

function runBuilder(args: Record<string, unknown>, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", BUILDER, "--", JSON.stringify(args)], {
      stdio: ["ignore", "ignore", "pipe"],
      // This process's environment without its NODE_OPTIONS (a loader or a profiler meant for this process).
      env: { ...processEnv(), NODE_OPTIONS: "" },
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`PGlite template builder exited with ${signal ?? code}: ${stderr.trim()}`));
    });
  });
}

/** Renames a finished staging directory into place; a finished template already there is as good. */
export function publishDir(staging: string, template: string): void {
  try {
    renameSync(staging, template);
    return;
  } catch (err) {
    if (isDirTemplate(template)) {
      rmSync(staging, { recursive: true, force: true });
      return;
    }
    if (!existsSync(template)) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
  }
  // An unfinished directory in the way (no marker): move it aside, then ours into place.
  const aside = `${template}.stale-${process.pid}`;
  rmSync(aside, { recursive: true, force: true });
  try {
    renameSync(template, aside);
    renameSync(staging, template);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (!isDirTemplate(template)) throw err;
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
}

export interface EnsureTemplatesOptions {
  /** Where to look and build, in order (default templateCacheDirs()). */
  cacheDirs?: readonly string[];
  /** Which templates are needed (default both). */
  kinds?: readonly TemplateKind[];
  /** Give up on the child after this long (default 5 min). */
  timeoutMs?: number;
  /** Stop waiting for another live builder's lock after this long, and build anyway (default 2 min). */
  waitMs?: number;
}

export interface EnsuredTemplates {
  dir: string | null;
  tarball: string | null;
  /** Whether this call ran a builder (false: found, or made by another process meanwhile). */
  built: boolean;
}

/**
 * Makes the missing templates among `kinds` in a child process, in the first cache directory that
 * can be written, and returns where each is (null for one that could not be made). Never throws for
 * a cache directory it cannot use; throws only when no directory could be used at all and nothing
 * was found, with the last error.
 */
export async function ensurePgliteTemplates(options: EnsureTemplatesOptions = {}): Promise<EnsuredTemplates> {
  const cacheDirs = options.cacheDirs ?? templateCacheDirs();
  const kinds = options.kinds ?? ["dir", "tarball"];
  const timeoutMs = options.timeoutMs ?? 300_000;
  const found = (): EnsuredTemplates => ({
    dir: kinds.includes("dir") ? findTemplate("dir", cacheDirs) : null,
    tarball: kinds.includes("tarball") ? findTemplate("tarball", cacheDirs) : null,
    built: false,
  });
  const complete = (r: EnsuredTemplates) => kinds.every((k) => (k === "dir" ? r.dir : r.tarball) !== null);
  let result = found();
  if (complete(result)) return result;
  let lastError: unknown;
  for (const cacheDir of cacheDirs) {
    const lockFile = join(cacheDir, `pglite-${templateKey()}.lock`);
    try {
      mkdirSync(cacheDir, { recursive: true });
      const waitUntil = Date.now() + (options.waitMs ?? 120_000);
      let lock = tryLock(lockFile);
      while (!lock.held && Date.now() < waitUntil) {
        await sleep(100);
        result = found();
        if (complete(result)) return result;
        lock = tryLock(lockFile);
      }
      try {
        removeDeadStaging(cacheDir);
        result = found();
        if (complete(result)) return result;
        const needDir = kinds.includes("dir") && !result.dir;
        const needTarball = kinds.includes("tarball") && !result.tarball;
        const dir = templateDirIn(cacheDir);
        const tarball = templateTarballIn(cacheDir);
        const stagingDir = `${dir}.staging-${process.pid}`;
        const stagingTar = `${tarball}.staging-${process.pid}`;
        rmSync(stagingDir, { recursive: true, force: true });
        rmSync(stagingTar, { force: true });
        try {
          await runBuilder(
            {
              resolveFrom: import.meta.url,
              migrations: MIGRATIONS_FOLDER,
              key: templateKey(),
              slim: TEMPLATE_SLIMMING,
              ...(needDir ? { dir: stagingDir } : {}),
              ...(needTarball ? { tarball: stagingTar } : {}),
            },
            timeoutMs,
          );
          if (needDir) {
            if (!isDirTemplate(stagingDir)) throw new Error(`the builder left no finished template in ${stagingDir}`);
            publishDir(stagingDir, dir);
          }
          if (needTarball) {
            if (!isTarball(stagingTar)) throw new Error(`the builder left no tarball at ${stagingTar}`);
            renameSync(stagingTar, tarball);
          }
        } finally {
          rmSync(stagingDir, { recursive: true, force: true });
          rmSync(stagingTar, { force: true });
        }
        result = { ...found(), built: true };
        if (complete(result)) return result;
      } finally {
        if (lock.held) rmSync(lockFile, { force: true });
      }
    } catch (err) {
      lastError = err;
    }
  }
  result = { ...found(), built: result.built };
  if (!result.dir && !result.tarball && lastError) throw lastError;
  return result;
}
