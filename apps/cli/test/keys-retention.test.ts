/**
 * `condense key list|revoke|rotate` and `condense retention run`, in-process, on the embedded PGlite
 * and on a real Postgres database, and the key commands against a running API (--url).
 */
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "drizzle-orm";
import {
  authenticateApiKey,
  createDb,
  createScratchDatabase,
  recordRecovery,
  type ScratchDatabase,
} from "@condense/db";
import { loadApiEnv, startServer, type RunningServer } from "@condense/api";
import { runCaptured as run } from "./support/captured-cli.ts";

const auditsOf = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l).audit);

const pgAdmin = inject("databaseUrl");
const kinds = pgAdmin.startsWith("postgres") ? ["pglite", "postgres"] : ["pglite"];

describe.each(kinds)("key lifecycle and retention from the CLI (%s)", (kind) => {
  let dir = "";
  let scratch: ScratchDatabase | undefined;
  let db: string[] = [];
  let dbUrl = "";
  beforeAll(async () => {
    if (kind === "postgres") {
      scratch = await createScratchDatabase(pgAdmin, "condense_cli_keys");
      dbUrl = scratch.url;
      db = ["--database-url", dbUrl];
      expect((await run(["migrate", ...db])).code).toBe(0);
    } else {
      dir = mkdtempSync(join(tmpdir(), "condense-keys-"));
      dbUrl = `pglite:${join(dir, "pglite")}`;
      db = ["--data-dir", dir];
    }
    expect((await run(["tenant", "create", "acme", ...db])).code).toBe(0);
  });
  afterAll(async () => {
    await releaseDataDir().catch(() => {});
    await scratch?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  // A data directory has one owner: the test stops the local service the CLI started before it opens
  // the PGlite directory itself (the CLI's own commands go through the owner while it runs).
  const releaseDataDir = async () => {
    if (kind === "pglite") expect((await run(["service", "stop", ...db])).code).toBe(0);
  };
  const authenticates = async (key: string) => {
    await releaseDataDir();
    const h = await createDb(dbUrl, { max: 1 });
    try {
      return (await authenticateApiKey(h.db, key)) !== null;
    } finally {
      await h.close();
    }
  };

  it("list, revoke and rotate (with and without grace), each audited on stderr", { timeout: 120_000 }, async () => {
    const created = (await run(["key", "create", "acme", "--label", "ci", ...db])).out.trim();
    const list = await run(["key", "list", "acme", "--json", ...db]);
    expect(list.code).toBe(0);
    const keys = JSON.parse(list.out).keys as { id: string; prefix: string; status: string; label: string }[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ label: "ci", status: "active" });
    expect(created.startsWith(keys[0]!.prefix)).toBe(true);
    expect(list.out).not.toContain(created);
    expect(auditsOf(list.err)[0]).toMatchObject({ action: "api_key.list", tenantId: "acme", actor: { kind: "cli" } });

    const table = await run(["key", "list", "acme", ...db]);
    expect(table.out).toMatch(/^ID\s+PREFIX\s+STATUS\s+LABEL\s+CREATED/);

    const rot = await run(["key", "rotate", "acme", keys[0]!.id, "--grace", "600", "--json", ...db]);
    expect(rot.code).toBe(0);
    const rotated = JSON.parse(rot.out);
    expect(rotated).toMatchObject({ tenantId: "acme", label: "ci", replaced: { id: keys[0]!.id } });
    expect(auditsOf(rot.err)[0]).toMatchObject({
      action: "api_key.rotate",
      tenantId: "acme",
      keyId: keys[0]!.id,
      newKeyId: rotated.id,
      graceSeconds: 600,
    });
    expect(await authenticates(created)).toBe(true); // in its grace period
    expect(await authenticates(rotated.key)).toBe(true);
    expect(
      JSON.parse((await run(["key", "list", "acme", "--json", ...db])).out).keys.map(
        (k: { status: string }) => k.status,
      ),
    ).toEqual(["expiring", "active"]);

    const rev = await run(["key", "revoke", "acme", keys[0]!.id, ...db]);
    expect(rev.code).toBe(0);
    expect(rev.out).toContain(`revoked: key ${keys[0]!.id}`);
    expect(auditsOf(rev.err)[0]).toMatchObject({ action: "api_key.revoke", tenantId: "acme", keyId: keys[0]!.id });
    expect(await authenticates(created)).toBe(false);

    const plain = await run(["key", "rotate", "acme", rotated.id, ...db]);
    expect(plain.code).toBe(0);
    expect(plain.out.trim()).toMatch(/^ck_\S{20,}$/);
    expect(plain.err).toContain("no longer works");
    expect(await authenticates(rotated.key)).toBe(false);
    expect(await authenticates(plain.out.trim())).toBe(true);
  });

  it("errors say what to do next", { timeout: 120_000 }, async () => {
    const missing = await run(["key", "revoke", "acme", "00000000-0000-4000-8000-000000000000", ...db]);
    expect(missing.code).toBe(3);
    expect(missing.err).toContain("condense key list acme");
    expect((await run(["key", "list", "ghost", ...db])).err).toContain("condense tenant create ghost");
    expect((await run(["key", "revoke", "acme", ...db])).code).toBe(2);
    expect((await run(["key", "rotate", "acme", "x", "--grace", "-5", ...db])).code).toBe(2);
    expect((await run(["key", "list", "acme", "--grace", "5", ...db])).err).toContain(
      "--grace applies to key rotate only",
    );
    expect((await run(["key", "delete", "acme", ...db])).err).toContain("unknown subcommand: key delete");
  });

  it("retention run deletes what is past its age, with env defaults overridden by flags", {
    timeout: 120_000,
  }, async () => {
    await releaseDataDir();
    const h = await createDb(dbUrl, { max: 1 });
    try {
      await h.db.execute(sql`insert into sessions (tenant_id, session_id, stats) values ('acme', 'old', '{}'::jsonb)`);
      await recordRecovery(h.db, {
        tenantId: "acme",
        sessionId: "old",
        hits: [
          { query: "t1", toolName: "bash", key: "k" },
          { query: "t2", toolName: "bash", key: "k2" },
        ],
      });
      await h.db.execute(sql`update recoveries set at = now() - interval '50 days'`);
    } finally {
      await h.close();
    }
    const keep = await run(["retention", "run", "--json", ...db], { CONDENSE_RETENTION_RECOVERIES_DAYS: "60" });
    expect(keep.code).toBe(0);
    expect(JSON.parse(keep.out)).toMatchObject({
      policy: { recoveriesDays: 60, capturesDays: 30 },
      removed: { recoveries: 0 },
    });
    const r = await run(["retention", "run", "--recoveries-days", "40", "--json", ...db], {
      CONDENSE_RETENTION_RECOVERIES_DAYS: "60",
    });
    expect(JSON.parse(r.out)).toMatchObject({
      policy: { recoveriesDays: 40 },
      removed: { recoveries: 2, captures: 0 },
    });
    const text = await run(["retention", "run", ...db]);
    expect(text.out).toMatch(/recoveries\s+0 deleted \(older than 90 days\)/);
    expect((await run(["retention", "run", ...db], { CONDENSE_RETENTION_CAPTURES_DAYS: "x" })).code).toBe(2);
    // the worker's own env rules (REDIS_URL needs a postgres DATABASE_URL) do not get in the way
    expect((await run(["retention", "run", "--json", ...db], { REDIS_URL: "redis://127.0.0.1:6379" })).code).toBe(0);
    expect((await run(["retention", "purge", ...db])).code).toBe(2);
  });
});

describe("key commands against a running API (--url)", () => {
  let server: RunningServer;
  const ADMIN = "cli-admin-key-0123456789";
  beforeAll(async () => {
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({ PORT: "0", DATABASE_URL: "pglite:", CONDENSE_ADMIN_KEY: ADMIN }),
    });
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    await fetch(`${server.url}/v1/admin/tenants`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ id: "acme", name: "Acme" }),
    });
    await fetch(`${server.url}/v1/admin/tenants/acme/keys`, { method: "POST", headers: admin, body: "{}" });
  });
  afterAll(async () => server?.close());

  it("lists, rotates and revokes through the admin routes; a bad admin key is refused", {
    timeout: 60_000,
  }, async () => {
    const env = { CONDENSE_URL: server.url, CONDENSE_ADMIN_KEY: ADMIN };
    const list = await run(["key", "list", "acme", "--json"], env);
    expect(list.code).toBe(0);
    const [k] = JSON.parse(list.out).keys;
    const rot = await run(["key", "rotate", "acme", k.id, "--json"], env);
    const rotated = JSON.parse(rot.out);
    expect(
      (await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${rotated.key}` } })).status,
    ).toBe(200);
    const rev = await run(["key", "revoke", "acme", rotated.id], env);
    expect(rev.code).toBe(0);
    expect(
      (await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${rotated.key}` } })).status,
    ).toBe(401);
    const bad = await run(["key", "list", "acme"], {
      CONDENSE_URL: server.url,
      CONDENSE_ADMIN_KEY: "not-the-admin-key-at-all",
    });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("refused the admin key");
    expect((await run(["key", "list", "acme"], { CONDENSE_URL: server.url })).err).toContain(
      "--url needs the admin key",
    );
  });
});
