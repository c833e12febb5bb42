/**
 * `createDb(url)`: one drizzle database over two drivers. postgres:// and postgresql:// use
 * postgres.js (fleet mode); everything else is PGlite (embedded mode): "pglite:", "pglite://" and
 * "memory://" are in memory, "pglite://<dir>" or a plain local path keep data in that directory.
 */
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import * as schema from "./schema/index.ts";
import { DIRECTORY_START_PARAMS, MEMORY_START_PARAMS } from "./pglite-start-params.ts";

export type DbSchema = typeof schema;
/**
 * The common type of both drivers' drizzle databases; repositories take this. `$client` is drizzle's
 * public handle on the driver (statement.ts sends the kept raw statements through it).
 */
export type Db = PgDatabase<PgQueryResultHKT, DbSchema> & { $client: postgres.Sql | PGlite };
/** A transaction handle as repositories see it. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type DbTarget = { driver: "postgres"; url: string } | { driver: "pglite"; dataDir: string | undefined };

export interface DbHandle {
  db: Db;
  target: DbTarget;
  /** The PGlite instance in embedded mode (the migrator reuses it: PGlite is one connection). */
  pglite?: PGlite;
  close(): Promise<void>;
}

export interface CreateDbOptions {
  /** postgres.js pool size (default 10). */
  max?: number;
}

/** Decide the driver from a URL. Exported for config validation and tests. */
export function parseDbUrl(url: string): DbTarget {
  const u = url.trim();
  if (/^postgres(ql)?:\/\//i.test(u)) return { driver: "postgres", url: u };
  if (u === "pglite:" || u === "pglite://" || u === "memory://" || u === "memory:" || u === "")
    return { driver: "pglite", dataDir: undefined };
  if (u.startsWith("pglite://")) return { driver: "pglite", dataDir: u.slice("pglite://".length) };
  if (u.startsWith("pglite:")) return { driver: "pglite", dataDir: u.slice("pglite:".length) };
  if (u.startsWith("file://")) return { driver: "pglite", dataDir: new URL(u).pathname };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) throw new Error(`unsupported database URL scheme: ${u.split(":")[0]}`);
  return { driver: "pglite", dataDir: u };
}

/**
 * Seconds postgres.js waits before a reconnect, given how many connection attempts in a row failed
 * (the pool-wide count resets on the next successful connect). postgres.js's default grows as 3^n/100
 * up to 20 s, so after a few seconds of database outage (a restart) every pool sat out up to 20 s
 * before trying again, and queries issued meanwhile waited that long even to fail. Doubling from 20 ms
 * to at most 2 s (with jitter) reconnects within about 2 s of the database coming back.
 */
export function reconnectBackoffSeconds(failedAttempts: number, random: () => number = Math.random): number {
  return Math.min(0.02 * 2 ** failedAttempts, 2) * (0.5 + random() / 2);
}

/** Readiness probe (the API's /readyz): one trivial round trip to the database. */
export async function pingDb(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

export async function createDb(url: string, options: CreateDbOptions = {}): Promise<DbHandle> {
  const target = parseDbUrl(url);
  if (target.driver === "postgres") {
    const client = postgres(target.url, {
      max: options.max ?? 10,
      onnotice: () => {},
      backoff: (n) => reconnectBackoffSeconds(n),
    });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    return { db, target, close: () => client.end({ timeout: 5 }) };
  }
  const pglite = target.dataDir
    ? new PGlite({ dataDir: target.dataDir, startParams: DIRECTORY_START_PARAMS })
    : new PGlite({ startParams: MEMORY_START_PARAMS });
  await pglite.waitReady;
  const db = drizzlePglite({ client: pglite, schema }) as unknown as Db;
  return { db, target, pglite, close: () => pglite.close() };
}
