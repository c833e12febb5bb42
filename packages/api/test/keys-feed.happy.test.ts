/**
 * Revocation made outside the serving process (the CLI on the database, another replica) reaches a
 * running server's key cache through the database's notification when it commits: the key that was
 * just served from the cache gets 401 without waiting for the cache TTL (30 s).
 */
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createApiKey,
  createDb,
  createScratchDatabase,
  ensureTenant,
  migrateDb,
  revokeTenantKey,
  rotateTenantKey,
  type DbHandle,
  type ScratchDatabase,
} from "@condense/db";
import { sql } from "drizzle-orm";
import { loadApiEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";

const databaseUrl = inject("databaseUrl");
const kinds = databaseUrl.startsWith("postgres") ? ["postgres", "pglite"] : ["pglite"];
if (kinds.length === 1)
  console.warn("keys-feed: no Postgres (DATABASE_URL); the cross-process case runs on PGlite only");

const statusWithin = async (url: string, key: string, want: number) => {
  let last = 0;
  for (let i = 0; i < 100; i++) {
    last = (await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } })).status;
    if (last === want) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  return last;
};

describe.each(kinds)("a running server drops revoked keys from its cache when the revocation commits (%s)", (kind) => {
  let scratch: ScratchDatabase | undefined;
  let server: RunningServer;
  let other: DbHandle;
  beforeAll(async () => {
    let url = "pglite:";
    if (kind === "postgres") {
      scratch = await createScratchDatabase(databaseUrl, "condense_keys_feed");
      url = scratch.url;
    }
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        DATABASE_URL: url,
        CONDENSE_MIGRATE: "true",
        CONDENSE_ADMIN_KEY: "feed-admin-key-0123456789",
      }),
    });
    // PGlite is one in-process connection: the "other process" is the server's own handle there.
    other = kind === "postgres" ? await createDb(url, { max: 2 }) : server.db;
    if (kind === "postgres") await migrateDb(other);
    await ensureTenant(other.db, { id: "acme" });
  });
  afterAll(async () => {
    await server?.close();
    if (kind === "postgres") await other?.close();
    await scratch?.drop();
  });

  it("revoke on another connection: the cached key gets 401", async () => {
    const k = await createApiKey(other.db, { tenantId: "acme" });
    expect(await statusWithin(server.url, k.key, 200)).toBe(200);
    expect((await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(
      200,
    );
    await revokeTenantKey(other.db, { tenantId: "acme", keyId: k.id });
    expect(await statusWithin(server.url, k.key, 401)).toBe(401);
  });

  it.runIf(kind === "postgres")(
    "a revocation sent while the server's feed connection was down still takes effect: the reconnect forgets the cache",
    async () => {
      const k = await createApiKey(other.db, { tenantId: "acme" });
      expect(await statusWithin(server.url, k.key, 200)).toBe(200);
      // Cut the server's LISTEN connection, and revoke at once: that notification may go nowhere.
      const cut = await other.db.execute(
        sql`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
      );
      const rows = ((cut as { rows?: unknown[] }).rows ?? (cut as unknown as unknown[])) as { ok: boolean }[];
      expect(rows.filter((r) => r.ok).length).toBe(1);
      await revokeTenantKey(other.db, { tenantId: "acme", keyId: k.id });
      expect(await statusWithin(server.url, k.key, 401)).toBe(401);
    },
  );

  it("rotate with grace on another connection: the old key keeps working (its entry now ends at the deadline)", async () => {
    const k = await createApiKey(other.db, { tenantId: "acme" });
    expect(await statusWithin(server.url, k.key, 200)).toBe(200);
    const r = await rotateTenantKey(other.db, { tenantId: "acme", keyId: k.id, graceSeconds: 600 });
    expect(await statusWithin(server.url, r!.created.key, 200)).toBe(200);
    expect((await fetch(`${server.url}/v1/sessions`, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(
      200,
    );
    await revokeTenantKey(other.db, { tenantId: "acme", keyId: k.id });
    expect(await statusWithin(server.url, k.key, 401)).toBe(401);
  });
});
