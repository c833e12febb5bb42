/**
 * `condense status`: is the service healthy, and what has the fleet been doing. With --url (or
 * CONDENSE_URL) it asks a running API (/readyz, /v1/fleet/status with the tenant's key); with
 * DATABASE_URL it reads Postgres directly; otherwise it asks the process that owns the data directory
 * (the local service or `condense serve`) and says so when none runs.
 */
import { fleetStatus, getTenant } from "@condense/db";
import { cliConfig } from "@condense/config";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseTargetFrom, describeDatabase, openDatabase } from "../database-target.ts";
import { adminRequest, ownerEndpoint } from "../local-service-client.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";

export const STATUS_HELP = `condense status [--url <api-url> --api-key <key>] [--tenant <id>] [--minutes <n>] [--json]

Health and fleet figures for one tenant over the last N minutes (default 60): flush outcomes, dedup
hit rate, summarizer usage, latency, pending captures, queued flushes, recoveries.
  --url, --api-key   ask a running API (env CONDENSE_URL, CONDENSE_API_KEY); the key decides the tenant
  --tenant <id>      with DATABASE_URL: read the database directly (default tenant: local)
  --database-url, --data-dir   which database (default DATABASE_URL, else the data directory's
                     service: CONDENSE_DATA_DIR, else ~/.pi/agent/condense; tenant local)
  --json             machine-readable output
`;

interface Flags {
  url?: string;
  "api-key"?: string;
  tenant?: string;
  minutes?: string;
  json?: boolean;
  "database-url"?: string;
  "data-dir"?: string;
}

export async function statusCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<Flags>("status", argv, {
    url: { type: "string" },
    "api-key": { type: "string" },
    tenant: { type: "string" },
    minutes: { type: "string" },
    json: { type: "boolean" },
    "database-url": { type: "string" },
    "data-dir": { type: "string" },
  });
  if (help) {
    io.out(STATUS_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw new CliError(`unexpected argument: ${positionals[0]}`, EXIT.usage, "see: condense status --help");
  const minutes = intFlag("minutes", values.minutes, 60, 1);
  const cli = cliConfig(io.env);
  const url = values.url ?? cli.url;
  const target = databaseTargetFrom(values, io.env);
  let report: Record<string, unknown>;
  if (url) {
    const key = values["api-key"] ?? cli.apiKey;
    if (!key)
      throw new CliError(
        "--url needs an API key",
        EXIT.usage,
        "pass --api-key or set CONDENSE_API_KEY (mint one with condense key create <tenant>)",
      );
    const base = url.replace(/\/$/, "");
    const get = async (path: string, auth: boolean) => {
      try {
        const res = await fetch(`${base}${path}`, {
          headers: auth ? { authorization: `Bearer ${key}` } : {},
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
        return { status: res.status, body };
      } catch (err) {
        throw new CliError(
          `cannot reach ${base}: ${err instanceof Error ? err.message : String(err)}`,
          EXIT.failure,
          "is the API running? (condense serve, or docker compose up)",
        );
      }
    };
    const ready = await get("/readyz", false);
    const fleet = await get(`/v1/fleet/status?minutes=${minutes}`, true);
    if (fleet.status === 401)
      throw new CliError("the API rejected the key (401)", EXIT.failure, "check --api-key / CONDENSE_API_KEY");
    report = { source: base, ready: ready.status === 200, readiness: ready.body, fleet: fleet.body };
  } else if (target.kind === "data-dir") {
    if (values.tenant && values.tenant !== "local")
      throw new CliError(
        `the local service serves tenant local; for ${values.tenant} ask an API with its key`,
        EXIT.usage,
        "pass --url <api> --api-key <key of that tenant>",
      );
    const ep = ownerEndpoint(target.dataDir);
    if (!ep?.owner.endpoint) {
      if (ep)
        throw new CliError(
          `the data directory ${target.dataDir} is in use by ${ep.owner.role} (pid ${ep.owner.pid}), which serves no API`,
          EXIT.failure,
          "wait for it to finish, then retry",
        );
      report = { source: target.dataDir, ready: false, service: "not running" };
      io.out(
        values.json
          ? `${JSON.stringify(report, null, 2)}\n`
          : `source: ${target.dataDir}\nservice: not running (it starts when pi or a condense command needs it: condense service start)\n`,
      );
      return EXIT.failure;
    }
    const ready = await adminRequest<Record<string, unknown>>(ep, "GET", "/readyz", undefined, "tenant");
    const fleet = await adminRequest<Record<string, unknown>>(
      ep,
      "GET",
      `/v1/fleet/status?minutes=${minutes}`,
      undefined,
      "tenant",
    );
    report = {
      source: `${ep.owner.role} (pid ${ep.owner.pid}, ${ep.owner.endpoint})`,
      tenant: "local",
      ready: ready.status === 200,
      readiness: ready.body,
      fleet: fleet.body,
    };
  } else {
    const dbUrl = target.url;
    const tenant = values.tenant ?? "local";
    const handle = await openDatabase(dbUrl);
    try {
      if (!(await getTenant(handle.db, tenant)))
        throw new CliError(
          `no such tenant: ${tenant} on ${describeDatabase(dbUrl)}`,
          EXIT.input,
          "pass --tenant <id>, or create it: condense tenant create <id>",
        );
      report = {
        source: describeDatabase(dbUrl),
        tenant,
        fleet: await fleetStatus(handle.db, { tenantId: tenant, windowMinutes: minutes }),
      };
    } finally {
      await handle.close();
    }
  }
  io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
  return report.ready === false ? EXIT.failure : EXIT.ok;
}

function formatStatus(r: Record<string, unknown>): string {
  const lines = [`source: ${String(r.source)}${r.tenant ? ` · tenant ${String(r.tenant)}` : ""}`];
  if ("ready" in r) lines.push(`ready: ${r.ready ? "yes" : "NO"}`);
  const flatten = (prefix: string, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v))
      for (const [k, x] of Object.entries(v)) flatten(prefix ? `${prefix}.${k}` : k, x);
    else lines.push(`${prefix}: ${JSON.stringify(v)}`);
  };
  flatten("", r.fleet);
  return `${lines.join("\n")}\n`;
}
