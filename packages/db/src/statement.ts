/**
 * The few hot statements kept below drizzle's query builder (each in a `<table>.sql.ts` beside its
 * repository) are written with NAMED parameters: `:tenantId`, `:rows::jsonb`. `statement(text)`
 * turns them, once at module load, into the drivers' positional `$1..$n` (a name used twice is one
 * parameter), and `runStatement` sends the fixed text with the values in that order: on postgres.js
 * as a prepared statement (`unsafe(text, values, { prepare: true })`: parsed and planned once per
 * connection), on PGlite through `query`. Why keep them raw at all: building a drizzle query costs
 * more JS than these statements cost Postgres on the flush path (docs/benchmarks.md).
 *
 * The driver client is drizzle's public `db.$client`; `inTransaction` opens a transaction on the
 * driver itself, so statements that must share one (the locked flush commit) run on its connection.
 *
 * Values come back as the driver reads them: int8 as a string on postgres.js and a number on PGlite
 * (`num`), timestamptz as text on postgres.js under drizzle and a Date on PGlite (`date`); jsonb
 * comes back parsed from both. Rows are keyed by column name (snake_case, as the SQL names them).
 */
import type { Db } from "./client.ts";

export interface Statement<P extends object> {
  /** The text with positional placeholders, as the driver receives it. */
  readonly text: string;
  /** Parameter names in positional order ($1 is names[0]). */
  readonly names: readonly (keyof P & string)[];
}

/** `:name` not preceded by a colon or a word character (so `::jsonb` casts and `'a:b'` stay as they are). */
const PLACEHOLDER = /(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)/g;

export function statement<P extends object>(named: string): Statement<P> {
  const names: string[] = [];
  const text = named.replace(PLACEHOLDER, (_match, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text, names: names as (keyof P & string)[] };
}

/** A connection statements run on: a database's pool, or one transaction of `inTransaction`. */
export interface Connection {
  query(text: string, values: unknown[]): Promise<Record<string, unknown>[]>;
}

interface PostgresJsClient {
  unsafe(text: string, values: unknown[], options: { prepare: boolean }): PromiseLike<Record<string, unknown>[]>;
  begin(fn: (tx: PostgresJsClient) => Promise<unknown>): Promise<unknown>;
}
interface PgliteClient {
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  transaction(fn: (tx: Pick<PgliteClient, "query">) => Promise<unknown>): Promise<unknown>;
}

const isPostgresJs = (c: PostgresJsClient | PgliteClient): c is PostgresJsClient =>
  typeof (c as PostgresJsClient).unsafe === "function";

function postgresJsConnection(c: Pick<PostgresJsClient, "unsafe">): Connection {
  return { query: async (text, values) => [...(await c.unsafe(text, values, { prepare: true }))] };
}

function pgliteConnection(c: Pick<PgliteClient, "query">): Connection {
  return { query: async (text, values) => (await c.query(text, values)).rows };
}

const connections = new WeakMap<object, Connection>();

function connectionOf(db: Db): Connection {
  const client = db.$client as unknown as PostgresJsClient | PgliteClient;
  let conn = connections.get(client);
  if (!conn) {
    conn = isPostgresJs(client) ? postgresJsConnection(client) : pgliteConnection(client);
    connections.set(client, conn);
  }
  return conn;
}

function isDb(on: Db | Connection): on is Db {
  return "$client" in on;
}

export async function runStatement<Row extends Record<string, unknown>, P extends object>(
  on: Db | Connection,
  st: Statement<P>,
  params: P,
): Promise<Row[]> {
  const values = st.names.map((name) => {
    const v = (params as Record<string, unknown>)[name];
    if (v === undefined) throw new Error(`statement parameter :${name} is missing (pass null for SQL NULL)`);
    return v;
  });
  return (await (isDb(on) ? connectionOf(on) : on).query(st.text, values)) as Row[];
}

/** BEGIN on the driver, `fn` on that transaction's connection, COMMIT (ROLLBACK when `fn` throws). */
export async function inTransaction<T>(db: Db, fn: (conn: Connection) => Promise<T>): Promise<T> {
  const client = db.$client as unknown as PostgresJsClient | PgliteClient;
  if (isPostgresJs(client)) return (await client.begin((tx) => fn(postgresJsConnection(tx)))) as T;
  return (await client.transaction((tx) => fn(pgliteConnection(tx)))) as T;
}

/** int8 / numeric columns arrive as strings from postgres.js and as numbers from PGlite. */
export function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

/** timestamptz: a Date from PGlite, text ("2026-11-30 18:33:50.123+00") from postgres.js under drizzle. */
export function date(v: unknown): Date {
  return v instanceof Date ? v : new Date(v as string);
}

export function dateOrNull(v: unknown): Date | null {
  return v === null || v === undefined ? null : date(v);
}
