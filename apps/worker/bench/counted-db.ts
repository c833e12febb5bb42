/**
 * A drizzle database over postgres.js that counts what it sends, for the flush profile: every
 * statement (with its high-resolution epoch send time and SQL text) and every transaction (each costs
 * a BEGIN and a COMMIT round trip on top of its statements).
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { schema, type Db } from "@condense/db";

export interface SentStatement { at: number; sql: string; params: unknown[] }

export interface CountedDb {
  db: Db;
  statements: SentStatement[];
  transactions: number;
  reset(): void;
  close(): Promise<void>;
}

export function createCountedDb(url: string): CountedDb {
  const client = postgres(url, { max: 4, onnotice: () => {} });
  const counted: CountedDb = {
    db: undefined as unknown as Db,
    statements: [],
    transactions: 0,
    reset() { counted.statements = []; counted.transactions = 0; },
    close: () => client.end({ timeout: 5 }),
  };
  // Count BEGINs: drizzle runs every transaction through the client's begin().
  const wrapped = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "begin") {
        return (...args: unknown[]) => { counted.transactions++; return (target.begin as (...a: unknown[]) => unknown)(...args); };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  counted.db = drizzle({
    client: wrapped,
    schema,
    logger: { logQuery: (sql: string, params: unknown[]) => { counted.statements.push({ at: performance.timeOrigin + performance.now(), sql, params }); } },
  }) as unknown as Db;
  return counted;
}
