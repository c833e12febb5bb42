/**
 * `createRuntime`: embedded mode (no URLs: PGlite in a data directory, in-process queue) runs a flush
 * end to end through the queue; configuration parsing picks the mode; a queued request lost with a
 * previous process is re-enqueued at start; close() waits for the active flush.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getSession } from "@condense/db";
import { createRuntime, loadWorkerConfig, WorkerConfigError, type Runtime } from "../src/index.ts";
import { batch, call, capture, requestFlush, setupTenant, T0, TENANT } from "./support/flush-fixtures.ts";
import { metricsRows } from "./support/state-reads.ts";

async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("worker config", () => {
  it("picks the mode from the URLs and refuses Redis without Postgres", () => {
    expect(loadWorkerConfig({}).mode).toBe("embedded");
    // One meaning of the data directory: its root; the API's default database is the same PGlite.
    expect(loadWorkerConfig({ HOME: "/h" }).databaseUrl).toBe("pglite:/h/.pi/agent/condense/pglite");
    expect(loadWorkerConfig({ CONDENSE_DATA_DIR: "/srv/c/" }).databaseUrl).toBe("pglite:/srv/c/pglite");
    expect(loadWorkerConfig({ DATABASE_URL: "postgres://h/db", REDIS_URL: "redis://h:6379" }).mode).toBe("fleet");
    expect(loadWorkerConfig({ DATABASE_URL: "postgres://h/db" }).mode).toBe("postgres-in-process");
    expect(() => loadWorkerConfig({ REDIS_URL: "redis://h:6379" })).toThrow(WorkerConfigError);
    expect(() => loadWorkerConfig({ WORKER_CONCURRENCY: "0" })).toThrow(/WORKER_CONCURRENCY/);
    const c = loadWorkerConfig({
      WORKER_ID: "w-7",
      WORKER_CONCURRENCY: "3",
      CONDENSE_SUMMARIZER_MODEL: "openai/gpt-4o-mini",
      CONDENSE_SUMMARIZER_CONFIG: '{"retries":0}',
    });
    expect(c).toMatchObject({
      workerId: "w-7",
      concurrency: 3,
      summarizer: { retries: 0, summarizerModel: "openai/gpt-4o-mini" },
    });
  });

  it("reads the models sessions may pick (CONDENSE_SUMMARIZER_MODELS), and a runtime refuses an unknown one at start", async () => {
    expect(
      loadWorkerConfig({ CONDENSE_SUMMARIZER_MODELS: " openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest ,," })
        .sessionModels,
    ).toEqual(["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest"]);
    expect(loadWorkerConfig({}).sessionModels).toEqual([]);
    const config = loadWorkerConfig({
      DATABASE_URL: "pglite:",
      CONDENSE_MIGRATE: "false",
      CONDENSE_SUMMARIZER_MODELS: "nowhere/model-x",
      LOG_LEVEL: "silent",
    });
    await expect(createRuntime(config)).rejects.toThrow(/unknown provider "nowhere"/);
  });
});

describe("embedded runtime", () => {
  const dirs: string[] = [];
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    for (const r of runtimes.splice(0)) await r.close(1000);
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("runs a flush through the in-process queue over PGlite, and picks up requests a dead process left queued", async () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-rt-"));
    dirs.push(dir);
    const config = loadWorkerConfig({ CONDENSE_DATA_DIR: dir, LOG_LEVEL: "silent", WORKER_ID: "embedded-1" });
    const rt = await createRuntime(config);
    runtimes.push(rt);
    expect(rt.mode).toBe("embedded");
    expect(rt.queue.kind).toBe("in-process");
    const db = rt.db.db;
    await setupTenant(db);
    await capture(db, "emb", [batch(0, [call("a", T0 + 1)])]);
    // A request left queued before this process existed (its in-process job died with that process).
    const lost = await requestFlush(db, "emb");
    await rt.start();
    await waitFor(async () => (await getSession(db, { tenantId: TENANT, sessionId: "emb" }))?.version === 1);
    await capture(db, "emb", [batch(1, [call("b", T0 + 2)])]);
    const req = await requestFlush(db, "emb");
    await rt.queue.enqueue("flush-session", {
      tenantId: TENANT,
      sessionId: "emb",
      flushRequestId: req.id,
      cursor: req.cursor,
    });
    await waitFor(async () => (await getSession(db, { tenantId: TENANT, sessionId: "emb" }))?.version === 2);
    const rows = await metricsRows(db, "emb");
    expect(rows.map((r) => [r.flushRequestId, r.outcome, r.workerId])).toEqual([
      [lost.id, "summarized", "embedded-1"],
      [req.id, "summarized", "embedded-1"],
    ]);
    await rt.close(5000);
    runtimes.splice(0);
    // Same data directory, new process: the state is still there.
    const again = await createRuntime(config);
    runtimes.push(again);
    expect((await getSession(again.db.db, { tenantId: TENANT, sessionId: "emb" }))?.nextRef).toBe(3);
  });
});
