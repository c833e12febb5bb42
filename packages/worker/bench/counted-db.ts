/**
 * A drizzle database over postgres.js that counts what it sends, for the flush profile: every
 * statement (with its high-resolution epoch send time and SQL text), drizzle-built or raw, and every
 * transaction (each costs a BEGIN and a COMMIT round trip on top of its statements).
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { schema, type Db } from "@condense/db";

export interface SentStatement {
  at: number;
  sql: string;
  params: unknown[];
}

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
    reset() {
      counted.statements = [];
      counted.transactions = 0;
    },
    close: () => client.end({ timeout: 5 }),
  };
  // Every statement reaches postgres.js through `unsafe` (drizzle's queries and the raw fixed-text ones
  // of packages/db/src/statement.ts alike); transactions through `begin`, whose callback gets a client of its own,
  // wrapped the same way so statements inside transactions are counted too.
  const note = (sql: string, params: unknown[]) => {
    counted.statements.push({ at: performance.timeOrigin + performance.now(), sql, params });
  };
  const wrap = <T extends object>(c: T): T =>
    new Proxy(c, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "unsafe" && typeof value === "function") {
          return (sql: string, params: unknown[] = [], ...rest: unknown[]) => {
            note(sql, params);
            return (value as (...a: unknown[]) => unknown).call(target, sql, params, ...rest);
          };
        }
        if (prop === "begin" && typeof value === "function") {
          return (fn: (tx: object) => unknown) => {
            counted.transactions++;
            return (value as (f: (tx: object) => unknown) => unknown).call(target, (tx: object) => fn(wrap(tx)));
          };
        }
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  counted.db = drizzle({ client: wrap(client), schema }) as unknown as Db;
  return counted;
}
