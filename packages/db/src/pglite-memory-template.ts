/**
 * A throwaway in-memory PGlite database that starts migrated: loaded from a tarball of a migrated,
 * empty database (PGlite's `dumpDataDir`) kept in the template cache (pglite-template-cache.ts: made at
 * `pnpm install` by the root `prepare` script, keyed by the migrations and the PGlite build). Nothing
 * touches the disk after the load, so there is no directory to copy in (thousands of files) or to
 * remove afterwards, and statements do no file system calls: `condense replay` runs on it.
 *
 * With no tarball, one is made in a child process first (an initdb and the migrations, several seconds
 * and near 1 GB RSS, carried by the child), then loaded. A tarball that does not load (cut short,
 * corrupt) is removed and made again. Only when no child can make one does this process run the initdb
 * itself (and then keeps the tarball for the next run).
 *
 * The dump is taken after a CHECKPOINT. PGlite dumps a running cluster, so every load starts with
 * crash recovery: without the checkpoint it replays the migrations' whole WAL (about 1 MB) and
 * writes an end-of-recovery checkpoint of every page they touched, most of PGlite's start (1.7 of
 * 2 s of CPU in a replay of the README sample); after it there is no record left to redo.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import type { Db, DbHandle } from "./client.ts";
import { migrateDb } from "./migrate.ts";
import { MEMORY_START_PARAMS } from "./pglite-start-params.ts";
import { TEMPLATE_SLIMMING } from "./template-key.ts";
import { ensurePgliteTemplates, findTemplate, templateTarballIn } from "./pglite-template-cache.ts";
import * as schema from "./schema/index.ts";

function handleOf(pglite: PGlite): DbHandle {
  const db = drizzle({ client: pglite, schema }) as unknown as Db;
  return { db, target: { driver: "pglite", dataDir: undefined }, pglite, close: () => pglite.close() };
}

/** The database in `tarball`, or null (and the tarball removed) when it does not load. */
async function loadTarball(tarball: string): Promise<DbHandle | null> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(tarball);
  } catch {
    return null;
  }
  // Anything but a tar PGlite takes for gzip, and its failed decompression is an unhandled rejection
  // (which ends the process): only a whole tar (the magic of its first header, whole 512-byte blocks)
  // is handed over; a tar cut at a block boundary fails PGlite's start, which rejects cleanly.
  if (bytes.length < 1024 || bytes.length % 512 !== 0 || bytes.subarray(257, 262).toString("latin1") !== "ustar") {
    rmSync(tarball, { force: true });
    return null;
  }
  try {
    const pglite = new PGlite({ loadDataDir: new Blob([new Uint8Array(bytes)]), startParams: MEMORY_START_PARAMS });
    await pglite.waitReady;
    return handleOf(pglite);
  } catch {
    rmSync(tarball, { force: true });
    return null;
  }
}

async function tarballFromChild(cacheDirs: readonly string[]): Promise<string | null> {
  try {
    return (await ensurePgliteTemplates({ cacheDirs, kinds: ["tarball"] })).tarball;
  } catch {
    return null;
  }
}

/** Opens a migrated in-memory database from the tarball in `cacheDirs`, having it made first when there is none. */
export async function openMigratedMemoryPglite(cacheDirs: string | readonly string[]): Promise<DbHandle> {
  const dirs = typeof cacheDirs === "string" ? [cacheDirs] : cacheDirs;
  for (let attempt = 0; attempt < 2; attempt++) {
    const tarball = findTemplate("tarball", dirs) ?? (await tarballFromChild(dirs));
    if (!tarball) break;
    const handle = await loadTarball(tarball);
    if (handle) return handle;
  }
  return migrateInProcess(dirs);
}

async function migrateInProcess(cacheDirs: readonly string[]): Promise<DbHandle> {
  const pglite = new PGlite({ startParams: MEMORY_START_PARAMS });
  await pglite.waitReady;
  const handle = handleOf(pglite);
  try {
    await migrateDb(handle);
    for (const statement of TEMPLATE_SLIMMING) await pglite.exec(statement);
  } catch (err) {
    await pglite.close().catch(() => {});
    throw err;
  }
  try {
    await pglite.exec("CHECKPOINT");
    const bytes = Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer());
    for (const cacheDir of cacheDirs) {
      const tarball = templateTarballIn(cacheDir);
      const staging = `${tarball}.staging-${process.pid}`;
      try {
        mkdirSync(cacheDir, { recursive: true });
        writeFileSync(staging, bytes);
        // A concurrent maker renames the same content into place: either one wins.
        renameSync(staging, tarball);
        break;
      } catch {
        rmSync(staging, { force: true });
      }
    }
  } catch {
    /* no cache this time: the next run makes it */
  }
  return handle;
}
