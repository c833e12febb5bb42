/**
 * A throwaway database on a real Postgres server, for integration suites and benches: created
 * with a random name next to the server's admin database and dropped (connections forced off) after.
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(
  adminUrl: string,
  namePrefix = "condense_scratch",
): Promise<ScratchDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(namePrefix)) throw new Error(`invalid database name prefix: ${namePrefix}`);
  const name = `${namePrefix}_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: async () => {
      const s = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await s.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await s.end({ timeout: 5 });
      }
    },
  };
}
