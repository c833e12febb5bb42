/**
 * A session deleted while its flush runs (its tenant removed, an operator's delete) is final: the
 * database answers NotFoundError, and the job handler turns it into a NonRetryableJobError, which
 * the queue adapters fail at once instead of retrying five times.
 */
import { and, eq } from "drizzle-orm";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { NotFoundError, schema, type Db, type DbHandle } from "@condense/db";
import { NonRetryableJobError, type CondenseJobs, type JobRun } from "@condense/queue";
import type { Summarizer } from "@condense/summarizer";
import { createJobHandler } from "../src/index.ts";
import { batch, call, capture, requestFlush, setupTenant, TENANT, T0 } from "./support/flush-fixtures.ts";
import { scriptedSummarizer } from "./support/scripted-summarizer.ts";
import { createTestDatabase, openMigrated, testDbKinds, type TestDatabase } from "@condense/test-support/test-db";

function flushJob(p: { tenantId: string; sessionId: string; flushRequestId: string; cursor: number }) {
  return {
    name: "flush-session",
    id: `job-${p.flushRequestId}`,
    payload: p,
    attempt: 1,
    maxAttempts: 5,
    enqueuedAt: Date.now(),
    startedAt: Date.now(),
    signal: new AbortController().signal,
  } as unknown as JobRun<CondenseJobs>;
}

/** Deletes the session (cascading to its request and captures) when the first batch is summarized. */
function deletingSummarizer(db: Db, sessionId: string): Summarizer {
  const inner = scriptedSummarizer();
  return {
    ...inner,
    async summarizeBatch(b, options) {
      await db
        .delete(schema.sessions)
        .where(and(eq(schema.sessions.tenantId, TENANT), eq(schema.sessions.sessionId, sessionId)));
      return inner.summarizeBatch(b, options);
    },
  };
}

describe.each(testDbKinds())("a vanished session fails its job without retries (%s)", (kind) => {
  const open: { db: TestDatabase; handle: DbHandle }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.handle.close();
      await o.db.drop();
    }
  });

  it("a session deleted mid-run is a NonRetryableJobError caused by a NotFoundError", async () => {
    const db0 = await createTestDatabase(kind);
    const handle = await openMigrated(db0.url);
    open.push({ db: db0, handle });
    const db = handle.db;
    await setupTenant(db);
    await capture(db, "gone", [batch(0, [call("a", T0 + 20)]), batch(1, [call("b", T0 + 40)])]);
    const request = await requestFlush(db, "gone");
    const handler = createJobHandler({
      db,
      summarizer: deletingSummarizer(db, "gone"),
      workerId: "test-worker",
      logger: pino({ level: "silent" }),
    });
    const err = await handler(
      flushJob({ tenantId: TENANT, sessionId: "gone", flushRequestId: request.id, cursor: request.cursor }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NonRetryableJobError);
    expect((err as Error).cause).toBeInstanceOf(NotFoundError);
  });

  it("a request that never existed is final too", async () => {
    const db0 = await createTestDatabase(kind);
    const handle = await openMigrated(db0.url);
    open.push({ db: db0, handle });
    await setupTenant(handle.db);
    const handler = createJobHandler({
      db: handle.db,
      summarizer: scriptedSummarizer(),
      workerId: "test-worker",
      logger: pino({ level: "silent" }),
    });
    const missing = "00000000-0000-4000-8000-000000000000";
    await expect(
      handler(flushJob({ tenantId: TENANT, sessionId: "nobody", flushRequestId: missing, cursor: 0 })),
    ).rejects.toBeInstanceOf(NonRetryableJobError);
  });
});
