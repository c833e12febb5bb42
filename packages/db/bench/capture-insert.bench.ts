/**
 * `tsx packages/db/bench/capture-insert.bench.ts`: the service's work for one capture POST without HTTP,
 * `insertCaptures` of single-call batches one after another into a fresh PGlite directory (migrated from
 * scratch), as the local service takes an agent's steps: CPU and wall time of the first 40 (a fresh
 * database, cold caches) and of the next 200. Run it in two checkouts, alternating, to compare them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { oneCallBatch } from "@condense/test-support/captures";
import { createDb, ensureTenant, insertCaptures, migrateDb } from "../src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "condense-capture-insert-"));
const handle = await createDb(`pglite:${join(dir, "pglite")}`);
await migrateDb(handle);
await ensureTenant(handle.db, { id: "t" });
const key = { tenantId: "t", sessionId: "s" };
const batch = (i: number) => oneCallBatch(i, `out ${i} `.repeat(200), { i });
async function run(from: number, n: number): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = from; i < from + n; i++)
    await insertCaptures(handle.db, { ...key, captureId: `cap${i}`, batches: [batch(i)] });
  const used = process.cpuUsage(cpu);
  return { wallMs: Math.round(performance.now() - t0), cpuMs: Math.round((used.user + used.system) / 1000) };
}
const first40 = await run(0, 40);
const next200 = await run(40, 200);
console.log(JSON.stringify({ first40, next200 }));
await handle.close();
rmSync(dir, { recursive: true, force: true });
