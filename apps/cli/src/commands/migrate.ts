/** `condense migrate`: apply the database migrations (advisory-locked; safe to run from several places). */
import { migrateDb } from "@condense/db";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseUrlFrom, describeDatabase, openDatabase } from "../database-target.ts";
import { parseFlags } from "../parse-flags.ts";

export const MIGRATE_HELP = `condense migrate [--database-url <url>] [--data-dir <dir>]

Applies Condense's database migrations and exits. Idempotent; concurrent runs wait on an advisory lock.
Database: --database-url, else DATABASE_URL, else the PGlite in <data-dir>/pglite (data directory:
CONDENSE_DATA_DIR, else ~/.pi/agent/condense; refused while another process owns it).
`;

export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, help, positionals } = parseFlags<{ "database-url"?: string; "data-dir"?: string }>("migrate", argv, {
    "database-url": { type: "string" },
    "data-dir": { type: "string" },
  });
  if (help) {
    io.out(MIGRATE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw new CliError(`unexpected argument: ${positionals[0]}`, EXIT.usage, "see: condense migrate --help");
  const url = databaseUrlFrom(values, io.env);
  const started = Date.now();
  let handle;
  try {
    // openDatabase takes a data directory's owner lock (and migrates PGlite on open).
    handle = await openDatabase(url, "condense migrate");
    await migrateDb(handle);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(
      `migration failed on ${describeDatabase(url)}: ${err instanceof Error ? err.message : String(err)}`,
      EXIT.failure,
      "is the database reachable? check DATABASE_URL",
    );
  } finally {
    await handle?.close();
  }
  io.out(`migrations applied on ${describeDatabase(url)} in ${Date.now() - started} ms\n`);
  return EXIT.ok;
}
