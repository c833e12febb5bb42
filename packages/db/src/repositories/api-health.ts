/** Readiness probe for the API's /readyz: one trivial round trip to the database. */
import { sql } from "drizzle-orm";
import type { Db } from "../client.ts";

export async function pingDb(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}
