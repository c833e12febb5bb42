/**
 * A throwaway in-memory PGlite database that starts migrated: loaded from a tarball of a migrated,
 * empty database (PGlite's `dumpDataDir`) kept under a cache directory, keyed like the directory
 * template (pglite-template.ts: migrations and PGlite build). Nothing touches the disk after the load,
 * so there is no directory to copy in (thousands of files) or to remove afterwards, and statements do
 * no file system calls: `condense replay` runs on it. The first use makes the tarball (an initdb and
 * the migrations, several seconds), written to a staging file and renamed into place.
 *
 * The dump is taken after a CHECKPOINT. PGlite dumps a running cluster, so every load starts with
 * crash recovery: without the checkpoint it replays the migrations' whole WAL (about 1 MB) and
 * writes an end-of-recovery checkpoint of every page they touched, most of PGlite's start (1.7 of
 * 2 s of CPU in a replay of the README sample); after it there is no record left to redo.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import type { Db, DbHandle } from "./client.ts";
import { migrateDb } from "./migrate.ts";
import { templateKey } from "./pglite-template.ts";
import * as schema from "./schema/index.ts";

function handleOf(pglite: PGlite): DbHandle {
  const db = drizzle({ client: pglite, schema }) as unknown as Db;
  return { db, target: { driver: "pglite", dataDir: undefined }, pglite, close: () => pglite.close() };
}

function readTarball(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/** Opens a migrated in-memory database, making the tarball under `cacheDir` first when there is none. */
export async function openMigratedMemoryPglite(cacheDir: string): Promise<DbHandle> {
  // "-ckpt": tarballs made before the checkpoint (same key) are not reused.
  const tarball = join(cacheDir, `pglite-${templateKey()}-ckpt.tar`);
  const cached = readTarball(tarball);
  if (cached) {
    const pglite = new PGlite({ loadDataDir: new Blob([new Uint8Array(cached)]) });
    await pglite.waitReady;
    return handleOf(pglite);
  }
  const pglite = new PGlite();
  await pglite.waitReady;
  const handle = handleOf(pglite);
  try {
    await migrateDb(handle);
  } catch (err) {
    await pglite.close().catch(() => {});
    throw err;
  }
  try {
    await pglite.exec("CHECKPOINT");
    const dump = await pglite.dumpDataDir("none");
    mkdirSync(cacheDir, { recursive: true });
    const staging = `${tarball}.staging-${process.pid}`;
    writeFileSync(staging, Buffer.from(await dump.arrayBuffer()));
    // A concurrent maker renames the same content into place: either one wins.
    renameSync(staging, tarball);
  } catch {
    /* no cache this time: the next run makes it */
  }
  return handle;
}
