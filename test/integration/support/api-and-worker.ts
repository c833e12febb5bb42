/**
 * One service in a test: a migrated database (PGlite in a temp directory, or a scratch database on
 * the real Postgres), the API app from `newApp` over it (in-process queue, nothing attached), and a
 * way to run the flush job for a request the way a worker does, with the deterministic summarizer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { newApp, apiQueueFrom } from "@condense/api";
import { createDb, createScratchDatabase, ensureTenant, migrateDb, createApiKey, type DbHandle } from "@condense/db";
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { runFlush, type FlushRunResult } from "@condense/worker";

export type DbKind = "pglite" | "postgres";

export function dbKinds(): DbKind[] {
  return inject("databaseUrl").startsWith("postgres") ? ["pglite", "postgres"] : ["pglite"];
}

export interface ServiceUnderTest {
  handle: DbHandle;
  app: ReturnType<typeof newApp>;
  headers: Record<string, string>;
  tenantId: string;
  post<T = any>(path: string, body: unknown): Promise<{ status: number; body: T }>;
  /** Ask for a flush of the session through the API and run its job to the end. */
  flush(sessionId: string, settings?: Record<string, unknown>): Promise<FlushRunResult>;
  close(): Promise<void>;
}

export async function startService(
  kind: DbKind,
  config: Parameters<typeof newApp>[0]["config"] = {},
): Promise<ServiceUnderTest> {
  let drop = async () => {};
  let url: string;
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "condense-svc-"));
    url = `pglite:${dir}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const scratch = await createScratchDatabase(inject("databaseUrl"), "condense_svc");
    url = scratch.url;
    drop = scratch.drop;
  }
  const handle = await createDb(url, { max: 5 });
  await migrateDb(handle);
  const tenantId = `t_${Math.random().toString(36).slice(2, 10)}`;
  await ensureTenant(handle.db, { id: tenantId });
  const { key } = await createApiKey(handle.db, { tenantId, label: "test" });
  const queue = createInProcessQueue({ catalog: condenseJobs });
  const app = newApp({ db: handle.db, queue: apiQueueFrom(queue), config: { adminKey: "", ...config } });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const summarizer = createDeterministicSummarizer();
  let n = 0;
  const svc: ServiceUnderTest = {
    handle,
    app,
    headers,
    tenantId,
    async post(path, body) {
      const res = await app.request(path, { method: "POST", headers, body: JSON.stringify(body) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { status: res.status, body: parsed as any };
    },
    async flush(sessionId, settings = {}) {
      const flushId = `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
      const r = await svc.post(`/v1/sessions/${sessionId}/flushes`, { trigger: "manual", flushId, settings });
      if (r.status !== 202) throw new Error(`flush answered ${r.status}: ${JSON.stringify(r.body)}`);
      return runFlush(
        { db: handle.db, summarizer, workerId: "test" },
        {
          payload: { tenantId, sessionId, flushRequestId: flushId, cursor: r.body.cursor },
          attempt: 1,
          maxAttempts: 3,
          enqueuedAt: Date.now(),
          startedAt: Date.now(),
          signal: new AbortController().signal,
        },
      );
    },
    async close() {
      await queue.close(0);
      await handle.close();
      await drop();
    },
  };
  return svc;
}
