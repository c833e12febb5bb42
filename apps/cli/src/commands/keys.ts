/**
 * `condense key list|revoke|rotate`: the key lifecycle after `key create` (which stays in tenant.ts).
 * On the database directly (DATABASE_URL, or the embedded PGlite), like `key create`, or against a
 * running API's admin routes with --url and --admin-key. Every change writes one structured audit
 * line to stderr (who: the OS user and host, or the admin key's fingerprint; action; tenant; key id).
 */
import type { FetchLike } from "@condense/client";
import { hostname, userInfo } from "node:os";
import { getTenant, listTenantKeys, revokeTenantKey, rotateTenantKey, type DbHandle } from "@condense/db";
import { cliConfig } from "@condense/config";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseTargetFrom, openDatabase } from "../database-target.ts";
import { ownedError, ownerEndpoint } from "../local-service-client.ts";
import { didYouMean } from "../did-you-mean.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";
import { keyCommand as keyCreateCommand } from "./tenant.ts";

export const KEYS_HELP = `condense key <create|list|revoke|rotate> …

  condense key create <tenant-id> [--label <label>]          mint a key (shown once)
  condense key list <tenant-id> [--json]                     every key with id, prefix, label, status
  condense key revoke <tenant-id> <key-id> [--json]          the key gets 401 from now on
  condense key rotate <tenant-id> <key-id> [--grace <seconds>] [--json]
                                                             a new key (shown once); the old one stops
                                                             now, or after --grace seconds

Where: the database directly (--database-url, DATABASE_URL, else ./.condense/pglite), or a running
API with --url <api-url> --admin-key <key> (env CONDENSE_URL, CONDENSE_ADMIN_KEY).
Every list, revoke and rotate writes an audit line (JSON) to stderr.
`;

interface Flags {
  json?: boolean;
  grace?: string;
  url?: string;
  "admin-key"?: string;
  "database-url"?: string;
  "data-dir"?: string;
  label?: string;
}

const FLAGS = {
  json: { type: "boolean" },
  grace: { type: "string" },
  url: { type: "string" },
  "admin-key": { type: "string" },
  "database-url": { type: "string" },
  "data-dir": { type: "string" },
} as const;

interface KeyRow {
  id: string;
  prefix: string;
  label: string;
  status: string;
  createdAt: string;
  revokedAt: string | null;
}

export async function keysCommand(argv: string[], io: CliIo): Promise<number> {
  // --label is create's; parsing it here too lets flags stand before the subcommand.
  const { values, positionals, help } = parseFlags<Flags>("key", argv, { ...FLAGS, label: { type: "string" } });
  if (positionals[0] === "create") return keyCreateCommand(argv, io);
  if (help || positionals.length === 0) {
    io.out(KEYS_HELP);
    return help ? EXIT.ok : EXIT.usage;
  }
  if (values.label !== undefined)
    throw new CliError(
      "--label applies to key create only",
      EXIT.usage,
      "relabelling is not supported; rotate keeps the label",
    );
  const [action, tenantId, keyId, ...rest] = positionals;
  if (action !== "list" && action !== "revoke" && action !== "rotate") {
    throw new CliError(
      `unknown subcommand: key ${action}${didYouMean(action ?? "", ["create", "list", "revoke", "rotate"], (w) => `key ${w}`)}`,
      EXIT.usage,
      "see: condense key --help (create, list, revoke, rotate)",
    );
  }
  if (!tenantId)
    throw new CliError(`usage: condense key ${action} <tenant-id>${action === "list" ? "" : " <key-id>"}`, EXIT.usage);
  if (action === "list" ? keyId !== undefined || rest.length > 0 : !keyId || rest.length > 0) {
    throw new CliError(
      `usage: condense key ${action} <tenant-id>${action === "list" ? "" : " <key-id>"}`,
      EXIT.usage,
      "key ids are in: condense key list <tenant-id>",
    );
  }
  if (values.grace !== undefined && action !== "rotate")
    throw new CliError("--grace applies to key rotate only", EXIT.usage);
  const graceSeconds = intFlag("grace", values.grace, 0, 0);
  const cli = cliConfig(io.env);
  const url = values.url ?? cli.url;
  const target = url ? apiTarget(url, values["admin-key"] ?? cli.adminKey) : await localTarget(values, io);
  try {
    if (action === "list") {
      const keys = await target.list(tenantId);
      target.audit(io, { action: "api_key.list", tenantId, count: keys.length });
      io.out(values.json ? `${JSON.stringify({ tenantId, keys }, null, 2)}\n` : formatKeys(tenantId, keys));
    } else if (action === "revoke") {
      const r = await target.revoke(tenantId, keyId!);
      target.audit(io, { action: "api_key.revoke", tenantId, keyId: keyId! });
      io.out(
        values.json
          ? `${JSON.stringify(r, null, 2)}\n`
          : `revoked: key ${r.id} of tenant ${tenantId} (requests with it get 401 from ${r.revokedAt})\n`,
      );
    } else {
      const r = await target.rotate(tenantId, keyId!, graceSeconds);
      target.audit(io, {
        action: "api_key.rotate",
        tenantId,
        keyId: keyId!,
        newKeyId: r.id,
        graceSeconds,
        oldKeyRevokedAt: r.replaced.revokedAt,
      });
      if (values.json) io.out(`${JSON.stringify(r, null, 2)}\n`);
      else {
        io.out(`${r.key}\n`);
        io.err(
          `new API key for tenant ${tenantId} (id ${r.id}); it is shown only now. The old key ${r.replaced.id} ${graceSeconds > 0 ? `keeps working until ${r.replaced.revokedAt}` : "no longer works"}.\n`,
        );
      }
    }
  } finally {
    await target.close();
  }
  return EXIT.ok;
}

interface RotatedOut {
  key: string;
  id: string;
  tenantId: string;
  prefix: string;
  label: string;
  replaced: { id: string; revokedAt: string };
}

interface KeyTarget {
  list(tenantId: string): Promise<KeyRow[]>;
  revoke(tenantId: string, keyId: string): Promise<{ id: string; tenantId: string; revokedAt: string }>;
  rotate(tenantId: string, keyId: string, graceSeconds: number): Promise<RotatedOut>;
  audit(io: CliIo, entry: Record<string, unknown>): void;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const auditLine = (io: CliIo, entry: Record<string, unknown>, actor: Record<string, unknown>) =>
  io.err(
    `${JSON.stringify({ time: new Date().toISOString(), service: "condense-cli", msg: entry.action, audit: { ...entry, actor } })}\n`,
  );

async function dbTarget(url: string): Promise<KeyTarget> {
  const handle: DbHandle = await openDatabase(url);
  const db = handle.db;
  const noKey = (tenantId: string, keyId: string, what: string) =>
    new CliError(
      `tenant ${tenantId} has no active key ${keyId}${what}`,
      EXIT.input,
      `see the keys and their status: condense key list ${tenantId}`,
    );
  const needTenant = async (tenantId: string) => {
    if (!(await getTenant(db, tenantId)))
      throw new CliError(
        `no such tenant: ${tenantId}`,
        EXIT.input,
        `create it first: condense tenant create ${tenantId}`,
      );
  };
  const user = (() => {
    try {
      return userInfo().username;
    } catch {
      return null;
    }
  })();
  return {
    async list(tenantId) {
      await needTenant(tenantId);
      return (await listTenantKeys(db, tenantId)).map((k) => ({
        id: k.id,
        prefix: k.prefix,
        label: k.label,
        status: k.status,
        createdAt: k.createdAt.toISOString(),
        revokedAt: k.revokedAt?.toISOString() ?? null,
      }));
    },
    async revoke(tenantId, keyId) {
      await needTenant(tenantId);
      const r = UUID.test(keyId) ? await revokeTenantKey(db, { tenantId, keyId }) : null;
      if (!r) throw noKey(tenantId, keyId, "");
      return { id: r.id, tenantId: r.tenantId, revokedAt: r.revokedAt.toISOString() };
    },
    async rotate(tenantId, keyId, graceSeconds) {
      await needTenant(tenantId);
      const r = UUID.test(keyId) ? await rotateTenantKey(db, { tenantId, keyId, graceSeconds }) : null;
      if (!r) throw noKey(tenantId, keyId, " (a revoked or already rotated key cannot be rotated)");
      return {
        key: r.created.key,
        id: r.created.id,
        tenantId,
        prefix: r.created.prefix,
        label: r.created.label,
        replaced: { id: r.old.id, revokedAt: r.old.revokedAt.toISOString() },
      };
    },
    audit: (io, entry) => auditLine(io, entry, { kind: "cli", user, host: hostname(), database: handle.target.driver }),
    close: () => handle.close(),
  };
}

/**
 * A data directory has one owner: when a live process (the local service, `condense serve`) owns it,
 * the keys are managed through that owner's admin routes with the directory's admin key, never by
 * opening its PGlite beside it. Otherwise (no owner, or a Postgres URL) the database is opened.
 */
async function localTarget(values: { "database-url"?: string; "data-dir"?: string }, io: CliIo): Promise<KeyTarget> {
  const db = databaseTargetFrom(values, io.env);
  if (db.kind === "data-dir") {
    const ep = ownerEndpoint(db.dataDir);
    if (ep) {
      if (!ep.base) throw ownedError(db.dataDir, ep.owner);
      if (!ep.adminKey)
        throw new CliError(
          `${ep.owner.role} (pid ${ep.owner.pid}) owns ${db.dataDir} but its admin key is not readable`,
          EXIT.failure,
          "restart it (condense service stop, then retry) so it writes <data-dir>/admin-key",
        );
      return apiTarget(ep.base, ep.adminKey, ep.fetch);
    }
  }
  return dbTarget(db.url);
}

function apiTarget(
  url: string,
  adminKey: string | undefined,
  send: FetchLike = (i, init) => fetch(i, init),
): KeyTarget {
  if (!adminKey)
    throw new CliError(
      "--url needs the admin key",
      EXIT.usage,
      "pass --admin-key or set CONDENSE_ADMIN_KEY (the server's CONDENSE_ADMIN_KEY)",
    );
  const base = url.replace(/\/$/, "");
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await send(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminKey}`,
          "user-agent": "condense-cli",
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new CliError(
        `cannot reach ${base}: ${err instanceof Error ? err.message : String(err)}`,
        EXIT.failure,
        "is the API running? (condense serve)",
      );
    }
    const json = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (res.status === 401)
      throw new CliError("the API refused the admin key (401)", EXIT.failure, "check --admin-key / CONDENSE_ADMIN_KEY");
    if (!res.ok)
      throw new CliError(
        json?.error?.message ?? `the API answered ${res.status}`,
        res.status === 404 || res.status === 400 ? EXIT.input : EXIT.failure,
      );
    return json as T;
  };
  const path = (tenantId: string) => `/v1/admin/tenants/${encodeURIComponent(tenantId)}/keys`;
  return {
    list: async (tenantId) =>
      (await call<{ keys: KeyRow[] }>("GET", path(tenantId))).keys.map(
        ({ id, prefix, label, status, createdAt, revokedAt }) => ({ id, prefix, label, status, createdAt, revokedAt }),
      ),
    revoke: (tenantId, keyId) => call("POST", `${path(tenantId)}/${encodeURIComponent(keyId)}/revoke`),
    rotate: (tenantId, keyId, graceSeconds) =>
      call("POST", `${path(tenantId)}/${encodeURIComponent(keyId)}/rotate`, { graceSeconds }),
    // The server writes the authoritative audit line (with the admin fingerprint); this one says who ran the CLI.
    audit: (io, entry) =>
      auditLine(io, entry, {
        kind: "cli",
        user: (() => {
          try {
            return userInfo().username;
          } catch {
            return null;
          }
        })(),
        host: hostname(),
        api: base,
      }),
    close: async () => {},
  };
}

function formatKeys(tenantId: string, keys: KeyRow[]): string {
  if (keys.length === 0) return `tenant ${tenantId} has no keys (mint one: condense key create ${tenantId})\n`;
  const rows = keys.map((k) => [
    k.id,
    `${k.prefix}…`,
    k.status + (k.status === "expiring" && k.revokedAt ? ` until ${k.revokedAt}` : ""),
    k.label || "-",
    k.createdAt,
  ]);
  const head = ["ID", "PREFIX", "STATUS", "LABEL", "CREATED"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return `${[head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
