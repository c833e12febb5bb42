/**
 * `tsx packages/worker/bench/flush-queries.explain.ts`: EXPLAIN (ANALYZE, BUFFERS) of every statement one
 * flush sends, and of the state-delta reads, on a scratch Postgres database seeded with realistic row
 * counts (EXPLAIN_SESSIONS sessions, default 2000, each with 100 captures of which 10 pending, 90
 * records, 45 summaries, 10 aliases, 10 flush requests and metrics rows: ~200k captures). Prints each
 * plan's scan nodes and execution time, so a sequential scan or a sort on a big table shows up.
 * Writes run inside a transaction that is rolled back. Env: DATABASE_URL (admin URL).
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { createDb, createFlushRequest, ensureTenant, getStateDelta, insertCaptures, migrateDb } from "@condense/db";
import { createSummarizer } from "@condense/summarizer";
import { runFlush } from "../src/index.ts";
import { createCountedDb } from "./counted-db.ts";

const ADMIN = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SESSIONS = Number(process.env.EXPLAIN_SESSIONS ?? 2000);

async function seed(sql: postgres.Sql) {
  // Settled history for every session, written in bulk (the flush path is not what is measured here).
  await sql.unsafe(`
    insert into sessions (tenant_id, session_id, next_ref, version, stats)
      select 'x', 's' || g, 91, 20, '{"totalInputTokens":0,"totalOutputTokens":0,"totalCost":0,"callCount":0,"chainsCompressed":0,"rangesSummarized":0}'::jsonb
      from generate_series(1, ${SESSIONS}) g;
    insert into captures (tenant_id, session_id, occurrence_key, capture_id, batch_index, call_index, tool_call_id, tool_name, args, result_text, result_timestamp, turn_index, batch_timestamp, status)
      select 'x', 's' || g, 'c' || i || '@' || i, 'cap' || (i / 2), 0, i % 2, 'c' || i, 'bash', '{}'::jsonb, repeat('output line ', 40), i, i / 2, i * 1000,
             case when i > 90 then 'pending' else 'summarized' end
      from generate_series(1, ${SESSIONS}) g, generate_series(1, 100) i;
    insert into tool_call_records (tenant_id, session_id, key, tool_call_id, tool_name, args, result_text, turn_index, batch_timestamp, result_timestamp, short_ref, content_hash, version)
      select 'x', 's' || g, 'c' || i || '@' || i, 'c' || i, 'bash', '{}'::jsonb, repeat('output line ', 40), i / 2, i * 1000, i, 't' || i, md5(g::text || ':' || i), 1 + i / 5
      from generate_series(1, ${SESSIONS}) g, generate_series(1, 90) i;
    insert into summaries (tenant_id, session_id, id, text, refs, coverage, tool_names, turn_index, timestamp, version)
      select 'x', 's' || g, 'sum' || i, 'summary text', '[]'::jsonb, '[]'::jsonb, '["bash"]'::jsonb, i, i * 2000, 1 + i / 3
      from generate_series(1, ${SESSIONS}) g, generate_series(1, 45) i;
    insert into dedup_aliases (tenant_id, session_id, key, tool_call_id, original_key, version)
      select 'x', 's' || g, 'd' || i || '@' || i, 'd' || i, 'c1@1', 1 + i
      from generate_series(1, ${SESSIONS}) g, generate_series(1, 10) i;
    insert into flush_requests (tenant_id, session_id, trigger, cursor, status, committed_version)
      select 'x', 's' || g, 'budget', 0, 'committed', i from generate_series(1, ${SESSIONS}) g, generate_series(1, 10) i;
    insert into flush_metrics (tenant_id, session_id, flush_request_id, attempt, trigger, outcome)
      select tenant_id, session_id, id, 1, 'budget', 'summarized' from flush_requests;
    analyze;`);
}

function scanLines(plan: string[]): string[] {
  return plan
    .filter((l) =>
      /Scan|Sort|Execution Time|Planning Time|Hash Join|Nested Loop|Aggregate|Unique|LockRows|Update on|Insert on/.test(
        l,
      ),
    )
    .map((l) => l.replace(/\s+\(cost=[^)]*\)/, ""));
}

async function main() {
  const name = `condense_explain_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const handle = await createDb(url.toString(), { max: 4 });
  const raw = postgres(url.toString(), { max: 1, onnotice: () => {} });
  // The recorded params carry json/jsonb already serialized (drizzle's client passes them through
  // as text): replay them the same way instead of JSON-encoding them a second time.
  for (const oid of [114, 3802]) raw.options.serializers[oid] = (x: unknown) => x as string;
  const counted = createCountedDb(url.toString());
  try {
    await migrateDb(handle);
    await ensureTenant(handle.db, { id: "x" });
    const t0 = performance.now();
    await seed(raw);
    console.log(`seeded ${SESSIONS} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const [c] = await raw.unsafe(
      `select (select count(*) from captures) captures, (select count(*) from tool_call_records) records, (select count(*) from flush_requests) requests`,
    );
    console.log(`rows: ${JSON.stringify(c)}`);

    // One real flush of a seeded session: two fresh captures on top of its 10 pending ones.
    const key = { tenantId: "x", sessionId: `s${Math.ceil(SESSIONS / 2)}` };
    await insertCaptures(handle.db, {
      ...key,
      captureId: "fresh",
      batches: [
        {
          turnIndex: 500,
          timestamp: 5e9,
          assistantText: "",
          toolCalls: [0, 1].map((k) => ({
            toolCallId: `f${k}`,
            toolName: "bash",
            args: { k },
            resultText: `fresh ${k}\n${"x ".repeat(800)}`,
            isError: false,
            resultTimestamp: 5e9 + k,
          })),
        },
      ],
    });
    const req = await createFlushRequest(handle.db, { ...key, trigger: "budget" });
    // The flush's statements and params are recorded, then replayed under EXPLAIN (writes rolled back).
    counted.reset();
    await runFlush(
      { db: counted.db, summarizer: createSummarizer({}), workerId: "explain" },
      {
        payload: { ...key, flushRequestId: req.id, cursor: req.cursor },
        attempt: 1,
        maxAttempts: 5,
        enqueuedAt: Date.now(),
        startedAt: Date.now(),
        signal: new AbortController().signal,
      },
    );
    const flushStatements = [...counted.statements];
    counted.reset();
    await getStateDelta(counted.db, { ...key, since: 10 });
    const deltaStatements = [...counted.statements];

    for (const [label, list] of [
      ["flush", flushStatements],
      ["state delta (since 10)", deltaStatements],
    ] as const) {
      console.log(`\n## ${label}: ${list.length} statements`);
      for (const s of list) {
        if (/pg_advisory_xact_lock/.test(s.sql)) continue;
        await raw.unsafe("begin");
        try {
          const rows = await raw.unsafe(`explain (analyze, buffers) ${s.sql}`, s.params as never[]);
          console.log(`\n${s.sql.replace(/\s+/g, " ").slice(0, 160)}`);
          for (const l of scanLines(rows.map((r) => String(r["QUERY PLAN"])))) console.log(`  ${l}`);
        } finally {
          await raw.unsafe("rollback");
        }
      }
    }
  } finally {
    await counted.close();
    await raw.end();
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
