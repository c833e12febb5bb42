/**
 * Fixed-text SQL on the hot flush path, below drizzle's query builders: building a drizzle query
 * costs more JS than the statement costs Postgres, and a statement whose text never changes can be
 * prepared once per connection (postgres.js, `prepare: true`) instead of parsed and planned on every
 * call. Works on a database or a transaction handle of either driver; rows come back as plain
 * objects keyed by column name (snake_case, as the SQL names them).
 *
 * Types differ by driver: postgres.js returns int8 as a string, PGlite as a number (use `num`); on
 * postgres.js drizzle turns timestamp parsing off, so timestamps arrive as text there (use `date`).
 * jsonb comes back parsed from both.
 */
import type { Db, Tx } from "./client.ts";

interface PostgresJsClient { unsafe(text: string, params: unknown[], options: { prepare: boolean }): PromiseLike<Record<string, unknown>[]> }
interface PgliteClient { query(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> }

/** The driver client under a drizzle database or transaction (drizzle keeps it on its session). */
function clientOf(db: Db | Tx): PostgresJsClient | PgliteClient {
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client) throw new Error("raw query: no driver client on this database handle");
  return client as PostgresJsClient | PgliteClient;
}

export async function rawQuery<Row extends Record<string, unknown>>(db: Db | Tx, text: string, params: unknown[]): Promise<Row[]> {
  const client = clientOf(db);
  if ("unsafe" in client && typeof client.unsafe === "function") {
    return (await client.unsafe(text, params, { prepare: true })) as Row[];
  }
  return (await (client as PgliteClient).query(text, params)).rows as Row[];
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
