/**
 * The retention job as the worker runs it: configuration from env, the schedule firing on its own
 * interval against a real database, and the runtime's run with the configured policy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { pino } from "pino";
import { createDb, ensureTenant, migrateDb, recordRecovery, type DbHandle } from "@condense/db";
import { createRuntime, loadWorkerConfig, startRetentionSchedule, WorkerConfigError } from "../src/index.ts";
import { createTestDatabase, testDbKinds, type TestDatabase } from "@condense/test-support/test-db";

const rowsOf = (r: unknown) => ((r as { rows?: unknown[] }).rows ?? (r as unknown[])) as Record<string, unknown>[];

describe("retention config", () => {
  it("has defaults, reads each kind's days and the interval, and refuses bad values", () => {
    expect(loadWorkerConfig({}).retention).toEqual({
      intervalMs: 3_600_000,
      policy: { capturesDays: 30, storedBodiesDays: 30, flushMetricsDays: 90, recoveriesDays: 90 },
    });
    const c = loadWorkerConfig({
      CONDENSE_RETENTION_INTERVAL_MINUTES: "5",
      CONDENSE_RETENTION_CAPTURES_DAYS: "7",
      CONDENSE_RETENTION_STORED_BODIES_DAYS: "0",
      CONDENSE_RETENTION_FLUSH_METRICS_DAYS: "14",
      CONDENSE_RETENTION_RECOVERIES_DAYS: "21",
    });
    expect(c.retention).toEqual({
      intervalMs: 300_000,
      policy: { capturesDays: 7, storedBodiesDays: 0, flushMetricsDays: 14, recoveriesDays: 21 },
    });
    expect(() => loadWorkerConfig({ CONDENSE_RETENTION_CAPTURES_DAYS: "-1" })).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ CONDENSE_RETENTION_RECOVERIES_DAYS: "soon" })).toThrow(
      /CONDENSE_RETENTION_RECOVERIES_DAYS/,
    );
  });
});

describe.each(testDbKinds())("retention on a schedule (%s)", (kind) => {
  let database: TestDatabase;
  let handle: DbHandle;
  beforeAll(async () => {
    database = await createTestDatabase(kind, { inMemory: true });
    handle = await createDb(database.url, { max: 3 });
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: "acme" });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  const oldRecovery = async (sessionId: string) => {
    await handle.db.execute(
      sql`insert into sessions (tenant_id, session_id, stats) values ('acme', ${sessionId}, '{}'::jsonb) on conflict do nothing`,
    );
    await recordRecovery(handle.db, {
      tenantId: "acme",
      sessionId,
      hits: [{ query: "t1", toolName: "bash", key: "k" }],
    });
    await handle.db.execute(
      sql`update recoveries set at = now() - interval '200 days' where session_id = ${sessionId}`,
    );
  };
  const recoveriesOf = async (sessionId: string) =>
    rowsOf(await handle.db.execute(sql`select count(*)::int as n from recoveries where session_id = ${sessionId}`))[0]!
      .n;

  it("fires by itself on its interval and logs what it removed", async () => {
    await oldRecovery("sched");
    const lines: Record<string, any>[] = [];
    const logger = pino(
      { level: "info" },
      {
        write: (s: string) => {
          lines.push(JSON.parse(s));
        },
      },
    );
    const schedule = startRetentionSchedule({
      db: handle.db,
      logger,
      intervalMs: 50,
      firstRunDelayMs: 10,
      policy: { capturesDays: 0, storedBodiesDays: 0, flushMetricsDays: 0, recoveriesDays: 30 },
    });
    try {
      for (let i = 0; i < 200 && lines.filter((l) => l.job === "retention").length < 2; i++)
        await new Promise((r) => setTimeout(r, 25));
    } finally {
      schedule.stop();
    }
    const runs = lines.filter((l) => l.job === "retention");
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0]).toMatchObject({ outcome: "ok", removed: { recoveries: 1 } });
    expect(await recoveriesOf("sched")).toBe(0);
  });

  it("does not schedule when the interval is 0 or every kind is kept forever (runOnce still works)", async () => {
    await oldRecovery("off");
    const silent = pino({ level: "silent" });
    const off = startRetentionSchedule({
      db: handle.db,
      logger: silent,
      intervalMs: 0,
      firstRunDelayMs: 0,
      policy: { capturesDays: 0, storedBodiesDays: 0, flushMetricsDays: 0, recoveriesDays: 30 },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(await recoveriesOf("off")).toBe(1);
    expect(await off.runOnce()).toMatchObject({ recoveries: 1 });
    off.stop();
  });

  it("the runtime runs it with the policy from its env", async () => {
    await oldRecovery("rt");
    const rt = await createRuntime(
      loadWorkerConfig({ LOG_LEVEL: "silent", CONDENSE_RETENTION_RECOVERIES_DAYS: "100", CONDENSE_MIGRATE: "false" }),
      { db: handle },
    );
    try {
      await rt.start();
      expect(await rt.runRetentionNow()).toEqual({ captures: 0, storedBodies: 0, flushMetrics: 0, recoveries: 1 });
      expect(await recoveriesOf("rt")).toBe(0);
    } finally {
      await rt.close(1000);
    }
  });
});
