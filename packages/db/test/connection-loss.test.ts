/**
 * createDb's postgres.js client when the server kills a connection inside a transaction (what a
 * Postgres restart does to every busy connection). Unpatched postgres.js 3.4.9 wrote the rollback to
 * a null socket from setImmediate (an uncaught TypeError), left the connection unable to reconnect
 * until connect_timeout had passed about ten times, and ran a dead transaction's later statements on
 * the reconnected connection, outside any transaction (porsager/postgres#1154, #1155); and a new
 * connection lost while fetching array types left an unhandled rejection (#1192, #1223). The workspace
 * patches it (patches/postgres@3.4.9.patch); these tests fail if the patch is lost.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, createScratchDatabase, reconnectBackoffSeconds, type DbHandle } from "../src/index.ts";
import { postgresAdminUrl } from "@condense/test-support/test-db";

const admin = postgresAdminUrl();

describe("reconnectBackoffSeconds", () => {
  it("starts at tens of milliseconds, doubles, and never exceeds 2 s", () => {
    expect(reconnectBackoffSeconds(0, () => 1)).toBeCloseTo(0.02);
    expect(reconnectBackoffSeconds(3, () => 1)).toBeCloseTo(0.16);
    for (let n = 0; n < 100; n++) {
      expect(reconnectBackoffSeconds(n, () => 1)).toBeLessThanOrEqual(2);
      expect(reconnectBackoffSeconds(n, () => 0)).toBeGreaterThanOrEqual(reconnectBackoffSeconds(n, () => 1) / 2);
    }
  });
});
if (!admin)
  console.warn(
    "\n!!! NO POSTGRES: the connection-loss tests of @condense/db are skipped. Set DATABASE_URL to run them. !!!\n",
  );

describe.skipIf(!admin)("postgres.js connection killed inside a transaction", () => {
  let url = "";
  let drop = async () => {};
  let killer: postgres.Sql;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => {
    uncaught.push(err);
  };
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    const scratch = await createScratchDatabase(admin, "condense_connloss");
    url = scratch.url;
    drop = scratch.drop;
    killer = postgres(admin, { max: 1, onnotice: () => {} });
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUnhandled);
  });
  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUnhandled);
    await killer?.end({ timeout: 5 });
    await drop();
  });

  /** Rows of a raw statement (the common Db type leaves execute()'s result untyped). */
  const rowsOf = async (db: Pick<DbHandle["db"], "execute">, query: ReturnType<typeof sql>) =>
    (await db.execute(query)) as unknown as Record<string, unknown>[];
  const backendPid = async (db: Pick<DbHandle["db"], "execute">) =>
    Number((await rowsOf(db, sql`select pg_backend_pid() as pid`))[0]!.pid);
  const terminate = (pid: number) => killer`select pg_sleep(0.2), pg_terminate_backend(${pid})`;
  const withinMs = <T>(ms: number, p: Promise<T>, what: string) =>
    Promise.race([
      p,
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} took more than ${ms} ms`)), ms)),
    ]);

  it("rejects the transaction, throws nothing uncaught, and the next query reconnects at once", async () => {
    const handle = await createDb(url, { max: 1 });
    try {
      const tx = handle.db.transaction(async (t) => {
        const pid = await backendPid(t);
        await Promise.all([t.execute(sql`select pg_sleep(5)`), terminate(pid)]);
      });
      await expect(tx).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50)); // the unpatched driver threw from the next setImmediate
      expect(uncaught).toEqual([]);
      const rows = await withinMs(5000, rowsOf(handle.db, sql`select 1 as one`), "the first query after the kill");
      expect(Number(rows[0]!.one)).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it("never runs a dead transaction's later statements outside it", async () => {
    const handle = await createDb(url, { max: 1 });
    try {
      await handle.db.execute(sql`create table if not exists connloss_rows (v text)`);
      let afterKill: unknown = "not reached";
      const tx = handle.db.transaction(async (t) => {
        await t.execute(sql`insert into connloss_rows values ('before-kill')`);
        await terminate(await backendPid(t));
        await new Promise((r) => setTimeout(r, 300)); // meanwhile a queued query reconnects the pool's connection
        afterKill = await t.execute(sql`insert into connloss_rows values ('after-kill')`).then(
          () => "ran",
          (e: unknown) => e,
        );
      });
      await new Promise((r) => setTimeout(r, 50));
      const queued = handle.db.execute(sql`select 1 as one`);
      await expect(tx).rejects.toThrow();
      await queued;
      await new Promise((r) => setTimeout(r, 500));
      expect(afterKill).toBeInstanceOf(Error);
      expect((await rowsOf(handle.db, sql`select v from connloss_rows`)).map((r) => r.v)).toEqual([]);
      expect(uncaught).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it("a connection lost while fetching array types fails the query and leaves no unhandled rejection", async () => {
    // A proxy to the server that cuts the connection when the driver sends its array-types query
    // and stops listening, so the driver's reconnect is refused (a server going down mid-startup).
    const target = new URL(url);
    const sockets: Socket[] = [];
    const proxy: Server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, upstream);
      client.on("error", () => {});
      upstream.on("error", () => {});
      upstream.pipe(client);
      client.on("data", (chunk: Buffer) => {
        if (chunk.includes("pg_catalog.pg_type")) {
          proxy.close();
          for (const s of sockets) s.destroy();
          return;
        }
        upstream.write(chunk);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
    const viaProxy = new URL(url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String((proxy.address() as { port: number }).port);
    const handle = await createDb(viaProxy.toString(), { max: 1 });
    try {
      await expect(handle.db.execute(sql`select 1 as one`)).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100)); // unhandled rejections are reported after the microtask queue drains
      expect(unhandled).toEqual([]);
    } finally {
      proxy.close();
      for (const s of sockets) s.destroy();
      await handle.close();
    }
  });

  it("reconnects within about 2 s once the server is back, however many connects were refused", async () => {
    // postgres.js's own backoff would wait 10-20 s here (3^7/100 s, capped at 20, with jitter).
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const viaPort = new URL(url);
    viaPort.hostname = "127.0.0.1";
    viaPort.port = String(port);
    const handle = await createDb(viaPort.toString(), { max: 1 });
    const target = new URL(url);
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      client.on("error", () => {});
      upstream.on("error", () => {});
      client.pipe(upstream);
      upstream.pipe(client);
    });
    try {
      for (let i = 0; i < 7; i++) await expect(handle.db.execute(sql`select 1`)).rejects.toThrow();
      await new Promise<void>((r) => proxy.listen(port, "127.0.0.1", () => r()));
      const t0 = Date.now();
      await handle.db.execute(sql`select 1`);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await handle.close();
      proxy.close();
    }
  });
});
