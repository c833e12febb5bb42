/** `condense tenant create <id>` and `condense key create <tenant>`: tenancy administration straight on the database. */
import { createApiKey, ensureTenant, getTenant } from "@condense/db";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseUrlFrom, describeDatabase, openDatabase } from "../database-target.ts";
import { parseFlags } from "../parse-flags.ts";

export const TENANT_HELP = `condense tenant create <tenant-id> [--name <name>] [--database-url <url>] [--data-dir <dir>]

Creates a tenant (idempotent: an existing tenant is left as it is). Then mint a key for it with
condense key create <tenant-id>. Works on the database directly (DATABASE_URL, or the embedded PGlite);
against a running API use POST /v1/admin/tenants with CONDENSE_ADMIN_KEY instead.
`;

export const KEY_HELP = `condense key create <tenant-id> [--label <label>] [--database-url <url>] [--data-dir <dir>]

Mints an API key for a tenant and prints it once (only its hash is stored). Clients send it as
Authorization: Bearer <key>.
`;

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const dbFlags = { "database-url": { type: "string" }, "data-dir": { type: "string" } } as const;

export async function tenantCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ name?: string; "database-url"?: string; "data-dir"?: string }>("tenant", argv, { name: { type: "string" }, ...dbFlags });
  if (help || positionals.length === 0) { io.out(TENANT_HELP); return help ? EXIT.ok : EXIT.usage; }
  const [sub, id, ...rest] = positionals;
  if (sub !== "create") throw new CliError(`unknown subcommand: tenant ${sub}`, EXIT.usage, "usage: condense tenant create <tenant-id>");
  if (!id || rest.length > 0) throw new CliError("usage: condense tenant create <tenant-id> [--name <name>]", EXIT.usage);
  if (!TENANT_ID.test(id)) throw new CliError(`invalid tenant id: ${id}`, EXIT.usage, "use 1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit");
  const url = databaseUrlFrom(values, io.env);
  const handle = await openDatabase(url);
  try {
    const existed = await getTenant(handle.db, id);
    const t = await ensureTenant(handle.db, { id, ...(values.name ? { name: values.name } : {}) });
    io.out(`${existed ? "tenant exists" : "tenant created"}: ${t.id} (${t.name}) on ${describeDatabase(url)}\nnext: condense key create ${t.id}\n`);
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}

export async function keyCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ label?: string; "database-url"?: string; "data-dir"?: string }>("key", argv, { label: { type: "string" }, ...dbFlags });
  if (help || positionals.length === 0) { io.out(KEY_HELP); return help ? EXIT.ok : EXIT.usage; }
  const [sub, tenantId, ...rest] = positionals;
  if (sub !== "create") throw new CliError(`unknown subcommand: key ${sub}`, EXIT.usage, "usage: condense key create <tenant-id>");
  if (!tenantId || rest.length > 0) throw new CliError("usage: condense key create <tenant-id> [--label <label>]", EXIT.usage);
  const url = databaseUrlFrom(values, io.env);
  const handle = await openDatabase(url);
  try {
    if (!(await getTenant(handle.db, tenantId))) {
      throw new CliError(`no such tenant: ${tenantId}`, EXIT.input, `create it first: condense tenant create ${tenantId}`);
    }
    const k = await createApiKey(handle.db, { tenantId, ...(values.label ? { label: values.label } : {}) });
    io.out(`${k.key}\n`);
    io.err(`API key for tenant ${tenantId} (id ${k.id}${k.label ? `, label ${k.label}` : ""}). It is shown only now; store it safely.\n`);
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}
