/** Plumbing for multi-row upserts: `excluded.<col>` assignments and bind-parameter-safe chunks. */
import { sql } from "drizzle-orm";

/** `set` for onConflictDoUpdate taking every listed column from the proposed row (snake_case names). */
export function excludedSet(columns: string[]): Record<string, ReturnType<typeof sql>> {
  const camel = (c: string) => c.replace(/_([a-z])/g, (_, x: string) => x.toUpperCase());
  return Object.fromEntries(columns.map((c) => [camel(c), sql.raw(`excluded."${c}"`)]));
}

export function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
