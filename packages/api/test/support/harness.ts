/**
 * The API test harness: a migrated in-memory PGlite, the in-process queue (no processor attached, so
 * enqueued flush jobs stay waiting and can be counted), and the app from `newApp`. Tenants and keys
 * are minted through the admin route, the way an operator would.
 */
import { createDb, migrateDb, type DbHandle } from "@condense/db";
import { condenseJobs, createInProcessQueue, type CondenseJobs, type JobQueue } from "@condense/queue";
import { newApp, type AppConfig, type AppDeps } from "../../src/app.ts";
import { apiQueueFrom } from "../../src/queue-port.ts";
import { VersionHub } from "../../src/sse/version-hub.ts";
import { getSessionVersions } from "@condense/db";

export const ADMIN_KEY = "test-admin-key-0123456789";

export interface TestTenant {
  tenantId: string;
  key: string;
  headers: Record<string, string>;
}

export interface Harness {
  db: DbHandle;
  queue: JobQueue<CondenseJobs>;
  hub: VersionHub;
  app: ReturnType<typeof newApp>;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  tenant(name?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

export async function createHarness(
  opts: { config?: Partial<AppConfig>; deps?: Partial<AppDeps>; db?: DbHandle } = {},
): Promise<Harness> {
  const db = opts.db ?? (await createDb("pglite:"));
  if (!opts.db) await migrateDb(db);
  const queue = createInProcessQueue({ catalog: condenseJobs });
  const hub = new VersionHub({ readVersions: (keys) => getSessionVersions(db.db, keys), pollMs: 50 });
  const app = newApp({
    db: db.db,
    queue: apiQueueFrom(queue),
    hub,
    config: { adminKey: ADMIN_KEY, ...opts.config },
    ...opts.deps,
  });
  let n = 0;
  const h: Harness = {
    db,
    queue,
    hub,
    app,
    request: async (path, init) => app.request(path, init),
    async json(path, init) {
      const res = await app.request(path, init);
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: res.status, body: body as any, res };
    },
    async tenant(name) {
      const id = name ?? `tenant-${++n}-${Math.random().toString(36).slice(2, 8)}`;
      const admin = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
      const t = await app.request("/v1/admin/tenants", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ id, name: id }),
      });
      if (t.status !== 201) throw new Error(`tenant create answered ${t.status}: ${await t.text()}`);
      const k = await app.request(`/v1/admin/tenants/${id}/keys`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ label: "test" }),
      });
      if (k.status !== 201) throw new Error(`key create answered ${k.status}: ${await k.text()}`);
      const { key } = (await k.json()) as { key: string };
      return { tenantId: id, key, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } };
    },
    async close() {
      await hub.close();
      await queue.close(0);
      if (!opts.db) await db.close();
    },
  };
  return h;
}

export const post = (headers: Record<string, string>, body: unknown): RequestInit => ({
  method: "POST",
  headers,
  body: typeof body === "string" ? body : JSON.stringify(body),
});
export const get = (headers: Record<string, string>): RequestInit => ({ method: "GET", headers });
