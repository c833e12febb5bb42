/**
 * `condense tenant create <id>` and `condense key create <tenant>`. On a Postgres database
 * (--database-url / DATABASE_URL) they work on it directly. On a data directory they go through the
 * process that owns it (the local service, started if none runs, or `condense serve`) with the
 * directory's admin key: opening its PGlite beside a live owner would lose the write.
 */
import { createApiKey, ensureTenant, getTenant } from "@condense/db";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseTargetFrom, describeDatabase, openDatabase } from "../database-target.ts";
import { adminRequest, localHost, ownedError, ownerEndpoint, type OwnerEndpoint } from "../local-service-client.ts";
import { parseFlags } from "../parse-flags.ts";

export const TENANT_HELP = `condense tenant create <tenant-id> [--name <name>] [--database-url <url>] [--data-dir <dir>]

Creates a tenant (idempotent: an existing tenant is left as it is). Then mint a key for it with
condense key create <tenant-id>. On DATABASE_URL (Postgres) it works on the database directly; on a
data directory (default ~/.pi/agent/condense) it goes through the service that owns it, starting the
local service if none runs. Against a remote API use POST /v1/admin/tenants with CONDENSE_ADMIN_KEY.
`;

export const KEY_HELP = `condense key create <tenant-id> [--label <label>] [--database-url <url>] [--data-dir <dir>]

Mints an API key for a tenant and prints it once (only its hash is stored). Clients send it as
Authorization: Bearer <key>. Database selection as for condense tenant create.
`;

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const dbFlags = { "database-url": { type: "string" }, "data-dir": { type: "string" } } as const;

/** The owner of the data directory, the local service started when there is none. */
export async function reachDataDirOwner(
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<OwnerEndpoint> {
  let ep = ownerEndpoint(dataDir);
  if (!ep) {
    const host = localHost(dataDir, env);
    // The client's wait for the service does not hold the event loop open (an agent must be free to
    // exit); a command has nothing else running, so it holds it itself while it waits.
    const keepAlive = setInterval(() => {}, 1_000);
    try {
      await host.ensure();
    } catch (err) {
      throw new CliError(
        `could not start the Condense local service: ${err instanceof Error ? err.message : String(err)}`,
        EXIT.failure,
        `see ${host.paths.logFile}`,
      );
    } finally {
      clearInterval(keepAlive);
    }
    ep = ownerEndpoint(dataDir);
  }
  if (!ep)
    throw new CliError(
      `the local service for ${dataDir} started but holds no owner lock`,
      EXIT.failure,
      "see <data-dir>/service.log",
    );
  if (!ep.owner.endpoint) throw ownedError(dataDir, ep.owner);
  return ep;
}

export async function tenantCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ name?: string; "database-url"?: string; "data-dir"?: string }>(
    "tenant",
    argv,
    { name: { type: "string" }, ...dbFlags },
  );
  if (help || positionals.length === 0) {
    io.out(TENANT_HELP);
    return help ? EXIT.ok : EXIT.usage;
  }
  const [sub, id, ...rest] = positionals;
  if (sub !== "create")
    throw new CliError(`unknown subcommand: tenant ${sub}`, EXIT.usage, "usage: condense tenant create <tenant-id>");
  if (!id || rest.length > 0)
    throw new CliError("usage: condense tenant create <tenant-id> [--name <name>]", EXIT.usage);
  if (!TENANT_ID.test(id))
    throw new CliError(
      `invalid tenant id: ${id}`,
      EXIT.usage,
      "use 1-64 characters: letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  const target = databaseTargetFrom(values, io.env);
  if (target.kind === "data-dir") {
    const ep = await reachDataDirOwner(target.dataDir, io.env);
    const r = await adminRequest<{ id: string; name: string; error?: { message?: string } }>(
      ep,
      "POST",
      "/v1/admin/tenants",
      { id, name: values.name ?? id },
    );
    const via = `via ${ep.owner.role} (${ep.owner.endpoint})`;
    if (r.status === 409) io.out(`tenant exists: ${id} ${via}\nnext: condense key create ${id}\n`);
    else if (r.status === 201 || r.status === 200)
      io.out(`tenant created: ${r.body.id} (${r.body.name}) ${via}\nnext: condense key create ${r.body.id}\n`);
    else throw new CliError(`tenant create failed (${r.status}): ${r.body?.error?.message ?? ""}`, EXIT.failure);
    return EXIT.ok;
  }
  const handle = await openDatabase(target.url);
  try {
    const existed = await getTenant(handle.db, id);
    const t = await ensureTenant(handle.db, { id, ...(values.name ? { name: values.name } : {}) });
    io.out(
      `${existed ? "tenant exists" : "tenant created"}: ${t.id} (${t.name}) on ${describeDatabase(target.url)}\nnext: condense key create ${t.id}\n`,
    );
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}

export async function keyCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ label?: string; "database-url"?: string; "data-dir"?: string }>(
    "key",
    argv,
    { label: { type: "string" }, ...dbFlags },
  );
  if (help || positionals.length === 0) {
    io.out(KEY_HELP);
    return help ? EXIT.ok : EXIT.usage;
  }
  const [sub, tenantId, ...rest] = positionals;
  if (sub !== "create")
    throw new CliError(`unknown subcommand: key ${sub}`, EXIT.usage, "usage: condense key create <tenant-id>");
  if (!tenantId || rest.length > 0)
    throw new CliError("usage: condense key create <tenant-id> [--label <label>]", EXIT.usage);
  const target = databaseTargetFrom(values, io.env);
  if (target.kind === "data-dir") {
    const ep = await reachDataDirOwner(target.dataDir, io.env);
    const r = await adminRequest<{ id: string; key: string; label: string | null; error?: { message?: string } }>(
      ep,
      "POST",
      `/v1/admin/tenants/${encodeURIComponent(tenantId)}/keys`,
      values.label ? { label: values.label } : {},
    );
    if (r.status === 404)
      throw new CliError(
        `no such tenant: ${tenantId}`,
        EXIT.input,
        `create it first: condense tenant create ${tenantId}`,
      );
    if (r.status !== 201)
      throw new CliError(`key create failed (${r.status}): ${r.body?.error?.message ?? ""}`, EXIT.failure);
    io.out(`${r.body.key}\n`);
    io.err(
      `API key for tenant ${tenantId} (id ${r.body.id}${r.body.label ? `, label ${r.body.label}` : ""}) via ${ep.owner.role}. It is shown only now; store it safely.\n`,
    );
    return EXIT.ok;
  }
  const handle = await openDatabase(target.url);
  try {
    if (!(await getTenant(handle.db, tenantId))) {
      throw new CliError(
        `no such tenant: ${tenantId}`,
        EXIT.input,
        `create it first: condense tenant create ${tenantId}`,
      );
    }
    const k = await createApiKey(handle.db, { tenantId, ...(values.label ? { label: values.label } : {}) });
    io.out(`${k.key}\n`);
    io.err(
      `API key for tenant ${tenantId} (id ${k.id}${k.label ? `, label ${k.label}` : ""}). It is shown only now; store it safely.\n`,
    );
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}
