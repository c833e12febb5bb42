/**
 * Every Postgres query of every provisioned Grafana dashboard (infra/grafana/dashboards/*.json) runs
 * against a real, migrated Postgres as the read-only `grafana_reader` role the postgres-init SQL
 * creates, with Grafana's macros and template variables expanded the way Grafana expands them.
 * Each query must return the columns listed below and rows for the seeded data, so a schema change
 * or a typo cannot silently break a panel. Prometheus panels are checked statically: every metric
 * they query must be registered somewhere in the apps/packages sources.
 *
 * Needs a real Postgres (DATABASE_URL=postgres://...); skips with a notice otherwise.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, createScratchDatabase, migrateDb, type ScratchDatabase } from "@condense/db";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "@condense/test-support/sessions";

// ---------------------------------------------------------------------------------------------
// Grafana macro and template-variable expansion (the Postgres datasource's semantics).

export interface ExpandContext {
  from: Date;
  to: Date;
  /** $__interval, e.g. "1m". */
  interval: string;
  /** Template variables: a string is a single value (interpolated raw), an array a multi-value
   * variable (interpolated as a quoted, comma-separated list, as Grafana does for SQL). */
  vars: Record<string, string | string[]>;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

export function intervalSeconds(spec: string): number {
  const m = /^'?\s*(\d+(?:\.\d+)?)(ms|s|m|h|d|w)\s*'?$/.exec(spec.trim());
  if (!m) throw new Error(`bad interval: ${spec}`);
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}

/** Split macro arguments at top-level commas (nested parentheses and quotes kept intact). */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let cur = "";
  for (const ch of s) {
    if (ch === "'") quote = !quote;
    if (!quote && ch === "(") depth++;
    if (!quote && ch === ")") depth--;
    if (!quote && depth === 0 && ch === ",") {
      out.push(cur.trim());
      cur = "";
      continue;
    }
    cur += ch;
  }
  if (cur.trim().length > 0) out.push(cur.trim());
  return out;
}

const sqlString = (v: string) => `'${v.replace(/'/g, "''")}'`;

function interpolateVars(sql: string, ctx: ExpandContext): string {
  const value = (name: string, format?: string): string => {
    if (name === "__interval") return ctx.interval;
    if (name === "__interval_ms") return String(Math.round(intervalSeconds(ctx.interval) * 1000));
    if (!(name in ctx.vars)) throw new Error(`unknown template variable $${name}`);
    if (format !== undefined) throw new Error(`variable format :${format} not supported by this expander`);
    const v = ctx.vars[name]!;
    return Array.isArray(v) ? v.map(sqlString).join(",") : v;
  };
  return (
    sql
      .replace(/\$\{(\w+)(?::(\w+))?\}/g, (_, n: string, f?: string) => value(n, f))
      .replace(/\[\[(\w+)\]\]/g, (_, n: string) => value(n))
      // Plain $var, but not the $__macros (handled next).
      .replace(/\$(?!__(?:time|unixEpoch))(\w+)/g, (_, n: string) => value(n))
  );
}

export function expandGrafanaSql(sql: string, ctx: ExpandContext): string {
  let out = interpolateVars(sql, ctx);
  const fromS = Math.floor(ctx.from.getTime() / 1000);
  const toS = Math.floor(ctx.to.getTime() / 1000);
  const iso = (d: Date) => `'${d.toISOString()}'`;
  const macro =
    /\$__(timeFilter|timeFrom|timeTo|timeGroupAlias|timeGroup|unixEpochFilter|unixEpochFrom|unixEpochTo|timeEpoch|time)\(/;
  for (let guard = 0; guard < 1000; guard++) {
    const m = macro.exec(out);
    if (!m) break;
    // The argument list runs to the parenthesis that closes the macro's.
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < out.length && depth > 0; i++) {
      if (out[i] === "(") depth++;
      else if (out[i] === ")") depth--;
    }
    if (depth !== 0) throw new Error(`unbalanced macro call: ${out.slice(m.index, m.index + 60)}`);
    const args = splitArgs(out.slice(m.index + m[0].length, i - 1));
    const need = (n: number) => {
      if (args.length < n) throw new Error(`$__${m[1]} needs ${n} argument(s)`);
    };
    let rep: string;
    switch (m[1]) {
      case "timeFilter":
        need(1);
        rep = `${args[0]} BETWEEN ${iso(ctx.from)} AND ${iso(ctx.to)}`;
        break;
      case "timeFrom":
        rep = iso(ctx.from);
        break;
      case "timeTo":
        rep = iso(ctx.to);
        break;
      case "timeGroup":
      case "timeGroupAlias": {
        need(2);
        const sec = intervalSeconds(args[1]!);
        rep = `floor(extract(epoch from ${args[0]})/${sec})*${sec}`;
        if (m[1] === "timeGroupAlias") rep += ` AS "time"`;
        break;
      }
      case "unixEpochFilter":
        need(1);
        rep = `${args[0]} >= ${fromS} AND ${args[0]} <= ${toS}`;
        break;
      case "unixEpochFrom":
        rep = String(fromS);
        break;
      case "unixEpochTo":
        rep = String(toS);
        break;
      case "timeEpoch":
        need(1);
        rep = `extract(epoch from ${args[0]}) AS "time"`;
        break;
      default:
        need(1);
        rep = `${args[0]} AS "time"`;
    }
    out = out.slice(0, m.index) + rep + out.slice(i);
  }
  if (/\$__|\$\w|\[\[\w+\]\]/.test(out.replace(/'[^']*'/g, "")))
    throw new Error(`unexpanded macro or variable left in:\n${out}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The dashboards and what each Postgres query must return.

interface Target {
  refId: string;
  datasource?: { type?: string; uid?: string };
  rawSql?: string;
  expr?: string;
  format?: string;
}
interface Panel {
  id: number;
  title: string;
  type: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: {
    list: { name: string; query: string; multi?: boolean; includeAll?: boolean; datasource?: { uid?: string } }[];
  };
}

const DASHBOARD_DIR = join(REPO_ROOT, "infra/grafana/dashboards");
const dashboards: Dashboard[] = readdirSync(DASHBOARD_DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DASHBOARD_DIR, f), "utf8")) as Dashboard);

function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** Columns each query must return, by "<dashboard uid> / <panel title> / <refId>". A panel added without an entry fails. */
const EXPECTED_COLUMNS: Record<string, string[]> = {
  "condense-fleet / Flush attempts / A": ["flushes"],
  "condense-fleet / Reclaim / A": ["reclaim_pct"],
  "condense-fleet / Summarizer cost / A": ["cost_usd"],
  "condense-fleet / Dedup hit rate / A": ["dedup_hit_pct"],
  "condense-fleet / Fidelity score / A": ["fidelity"],
  "condense-fleet / Flush outcomes / A": [
    "time",
    "summarized",
    "skipped_oversized",
    "skipped_deduped",
    "skipped_trivial",
    "empty",
    "error",
    "coalesced",
  ],
  "condense-fleet / Flush requests by trigger / A": ["time", "metric", "requests"],
  "condense-fleet / Render diagnostics by kind / A": ["time", "metric", "diagnostics"],
  "condense-fleet / Reclaim / A (series)": ["time", "reclaim_pct"],
  "condense-fleet / Flush latency / A": ["time", "run_p50_ms", "run_p99_ms", "queue_wait_p50_ms", "queue_wait_p99_ms"],
  "condense-fleet / Summarizer cost / A (series)": ["time", "cost_usd"],
  "condense-fleet / Summary body source / A": ["time", "llm_primary", "llm_fallback", "deterministic"],
  "condense-fleet / Dedup hit rate / A (series)": ["time", "dedup_hit_pct"],
  "condense-fleet / Fidelity score / A (series)": ["time", "fidelity_avg", "fidelity_min"],
  "condense-fleet / Queued flush requests / A": ["queued"],
  "condense-fleet / Recovery rate by tool / A": ["tool", "condensed_calls", "recoveries", "recovery_rate_pct"],
  "condense-fleet / Recoveries by tool / A": ["time", "metric", "recoveries"],
  "condense-fleet / Sessions by raw volume / A": [
    "tenant",
    "session",
    "flushes",
    "raw_chars",
    "summary_chars",
    "reclaim_pct",
    "cost_usd",
    "last_flush",
  ],
  "condense-fleet / Chains compressed / A": ["time", "chains"],
  "condense-fleet / Cache economics by model / A": [
    "model",
    "flushes",
    "cache_write_tokens",
    "cache_read_saved_tokens",
    "saved_per_written",
  ],
  "condense-session / Session state / A": [
    "state_version",
    "refs_minted",
    "summaries",
    "chains",
    "summarizer_calls",
    "summarizer_cost_usd",
    "last_capture_at",
    "last_flush_at",
  ],
  "condense-session / Captures by status / A": ["status", "captures"],
  "condense-session / Raw vs summary characters / A": ["time", "raw_chars", "summary_chars"],
  "condense-session / Flush run time and queue wait / A": ["time", "run_ms", "queue_wait_ms"],
  "condense-session / Flush attempts / A": [
    "time",
    "trigger",
    "outcome",
    "reason",
    "attempt",
    "attempted_calls",
    "dedup_hits",
    "raw_chars",
    "summary_chars",
    "model",
    "body_source",
    "fidelity_score",
    "cost_usd",
    "run_ms",
    "queue_wait_ms",
    "worker_id",
  ],
  "condense-session / Flush requests / A": [
    "time",
    "trigger",
    "status",
    "cursor",
    "committed_version",
    "completed_at",
    "latency_ms",
  ],
  "condense-session / Condensed calls by tool / A": ["tool", "records", "summarized", "stored", "raw_chars"],
  "condense-session / Recoveries / A": ["time", "query", "tool", "key", "ref"],
  "condense-session / Chains / A": ["block_id", "compressed_at", "dropped_calls", "tool_refs", "body_source"],
  "condense-session / Diagnostics / A": ["time", "kind", "detail"],
};

interface QueryCase {
  key: string;
  sql: string;
  format: string;
  dashboard: Dashboard;
}

/** Postgres targets; a title used by a stat and a time series is told apart by " (series)". */
function queryCases(): QueryCase[] {
  const out: QueryCase[] = [];
  for (const d of dashboards) {
    const seen = new Set<string>();
    for (const p of allPanels(d)) {
      for (const t of p.targets ?? []) {
        const ds = t.datasource ?? p.datasource;
        if (ds?.uid !== "condense-pg") continue;
        let key = `${d.uid} / ${p.title} / ${t.refId}`;
        if (seen.has(key)) key += " (series)";
        seen.add(key);
        out.push({ key, sql: t.rawSql ?? "", format: t.format ?? "time_series", dashboard: d });
      }
    }
  }
  return out;
}

const cases = queryCases();

// ---------------------------------------------------------------------------------------------

describe("Grafana macro expander", () => {
  const ctx: ExpandContext = {
    from: new Date("2026-01-01T00:00:00Z"),
    to: new Date("2026-01-02T00:00:00Z"),
    interval: "5m",
    vars: { tenant: ["a", "o'b"], session: "s1" },
  };
  it("expands time macros, nested arguments and every variable syntax", () => {
    expect(
      expandGrafanaSql(
        "SELECT $__timeGroupAlias(to_timestamp(x / 1000.0), $__interval) WHERE $__timeFilter(created_at)",
        ctx,
      ),
    ).toBe(
      `SELECT floor(extract(epoch from to_timestamp(x / 1000.0))/300)*300 AS "time" WHERE created_at BETWEEN '2026-01-01T00:00:00.000Z' AND '2026-01-02T00:00:00.000Z'`,
    );
    expect(
      expandGrafanaSql(
        "$__timeGroup(c, '1h', 0) $__unixEpochFilter(t / 1000) $__timeFrom() $__timeTo() $__unixEpochFrom() $__unixEpochTo()",
        ctx,
      ),
    ).toBe(
      "floor(extract(epoch from c)/3600)*3600 t / 1000 >= 1767225600 AND t / 1000 <= 1767312000 '2026-01-01T00:00:00.000Z' '2026-01-02T00:00:00.000Z' 1767225600 1767312000",
    );
    expect(expandGrafanaSql("IN ($tenant) = '$session' ${session} [[session]] $__interval_ms", ctx)).toBe(
      "IN ('a','o''b') = 's1' s1 s1 300000",
    );
  });
  it("refuses unknown variables and malformed macros", () => {
    expect(() => expandGrafanaSql("WHERE x = $nope", ctx)).toThrow(/unknown template variable/);
    expect(() => expandGrafanaSql("$__timeFilter(created_at", ctx)).toThrow(/unbalanced/);
    expect(() => expandGrafanaSql("$__timeGroup(c)", ctx)).toThrow(/needs 2/);
  });
});

describe("Grafana provisioning", () => {
  it("every dashboard has a stable uid, every panel query is covered, datasources exist in provisioning", () => {
    const prov = parseYaml(
      readFileSync(join(REPO_ROOT, "infra/grafana/provisioning/datasources/datasources.yaml"), "utf8"),
    ) as { datasources: { uid: string; type: string }[] };
    const byUid = new Map(prov.datasources.map((d) => [d.uid, d.type]));
    expect(new Set(dashboards.map((d) => d.uid)).size).toBe(dashboards.length);
    for (const d of dashboards) {
      for (const p of allPanels(d)) {
        if (p.type === "row") continue;
        expect(p.targets?.length ?? 0, `${d.uid} / ${p.title} has no query`).toBeGreaterThan(0);
        for (const t of p.targets ?? []) {
          const ds = t.datasource ?? p.datasource;
          expect(byUid.get(ds?.uid ?? ""), `${d.uid} / ${p.title}: datasource ${ds?.uid}`).toBe(ds?.type);
        }
      }
      for (const v of d.templating.list)
        expect(byUid.has(v.datasource?.uid ?? ""), `${d.uid} variable ${v.name}`).toBe(true);
    }
    expect(cases.map((c) => c.key).sort()).toEqual(Object.keys(EXPECTED_COLUMNS).sort());
  });

  it("every Prometheus metric a panel queries is registered by the code", () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name === "node_modules" || e.name === "test") continue;
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ts")) sources.push(readFileSync(p, "utf8"));
      }
    };
    walk(join(REPO_ROOT, "apps"));
    walk(join(REPO_ROOT, "packages"));
    const code = sources.join("\n");
    const exprs = dashboards.flatMap((d) =>
      allPanels(d).flatMap((p) => (p.targets ?? []).filter((t) => t.expr).map((t) => t.expr!)),
    );
    expect(exprs.length).toBeGreaterThan(0);
    for (const expr of exprs) {
      for (const name of expr.match(/condense_[a-z_]+/g) ?? []) {
        const base = name.replace(/_(bucket|sum|count)$/, "");
        expect(
          code.includes(`"${base}"`),
          `metric ${base} (from ${expr}) is not registered in apps/ or packages/`,
        ).toBe(true);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

const adminUrl = inject("databaseUrl");
const hasPostgres = /^postgres(ql)?:\/\//.test(adminUrl);
if (!hasPostgres)
  console.warn(
    "[condense] grafana-dashboards: no real Postgres (DATABASE_URL=postgres://...); dashboard queries are NOT checked",
  );

describe.skipIf(!hasPostgres)("Grafana dashboard queries on Postgres, as grafana_reader", () => {
  let scratch: ScratchDatabase;
  let reader: ReturnType<typeof postgres>;
  let owner: ReturnType<typeof postgres>;
  const role = `grafana_reader_${randomBytes(4).toString("hex")}`;
  const now = new Date();
  const ctxFor = (d: Dashboard): ExpandContext => ({
    from: new Date(now.getTime() - 24 * 3600_000),
    to: new Date(now.getTime() + 60_000),
    interval: "5m",
    vars: d.uid === "condense-fleet" ? { tenant: ["t-alpha", "t-beta"] } : { tenant: "t-alpha", session: "s-1" },
  });

  beforeAll(async () => {
    scratch = await createScratchDatabase(adminUrl, "condense_grafana");
    owner = postgres(scratch.url, { max: 1, onnotice: () => {} });
    // As in docker-compose: the init SQL runs first, as the role that then runs the migrations, so
    // the default privileges have to cover the tables the migrations create.
    const init = readFileSync(join(REPO_ROOT, "infra/docker/postgres-init/01-grafana-reader.sql"), "utf8").replace(
      /\bgrafana_reader\b/g,
      role,
    );
    await owner.unsafe(init);
    await owner.unsafe(`ALTER ROLE ${role} PASSWORD 'reader-test'`);
    const handle = await createDb(scratch.url);
    try {
      await migrateDb(handle);
    } finally {
      await handle.close();
    }
    await seed(owner, now);
    const u = new URL(scratch.url);
    u.username = role;
    u.password = "reader-test";
    reader = postgres(u.toString(), { max: 1, onnotice: () => {} });
  });

  afterAll(async () => {
    await reader?.end({ timeout: 5 });
    await owner?.end({ timeout: 5 });
    await scratch?.drop();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await admin.end({ timeout: 5 });
    }
  });

  it("the reader role can read but not write", async () => {
    await expect(reader`select count(*)::int as n from tenants`).resolves.toEqual([{ n: 2 }]);
    await expect(reader`insert into tenants (id, name) values ('x', 'x')`).rejects.toThrow(
      /read-only|permission denied/,
    );
  });

  it("template variable queries return values", async () => {
    for (const d of dashboards) {
      for (const v of d.templating.list) {
        const rows = await reader.unsafe(expandGrafanaSql(v.query, { ...ctxFor(d), vars: { tenant: "t-alpha" } }));
        expect(rows.length, `${d.uid} variable ${v.name}`).toBeGreaterThan(0);
      }
    }
  });

  for (const c of cases) {
    it(c.key, async () => {
      const sql = expandGrafanaSql(c.sql, ctxFor(c.dashboard));
      const rows = await reader.unsafe(sql);
      const columns = rows.columns.map((col) => col.name);
      expect(columns).toEqual(EXPECTED_COLUMNS[c.key]);
      expect(rows.length, `no rows for seeded data:\n${sql}`).toBeGreaterThan(0);
      if (c.format === "time_series") {
        // Grafana needs a time column, sorted ascending.
        const times = rows.map((r) => (r.time instanceof Date ? r.time.getTime() : Number(r.time)));
        expect(times.every((t) => Number.isFinite(t))).toBe(true);
        expect([...times].sort((a, b) => a - b)).toEqual(times);
      }
      // Value columns of the seeded data are not all null (a wrong column would often read as null).
      const nonNull = columns.filter((col) => rows.some((r) => r[col] !== null));
      expect(nonNull.length, `all-null columns in ${c.key}`).toBeGreaterThan(Math.floor(columns.length / 2));
    });
  }
});

/** Two tenants, sessions, flush requests/attempts of every outcome, records, recoveries, chains. */
async function seed(sql: ReturnType<typeof postgres>, now: Date): Promise<void> {
  const ago = (min: number) => new Date(now.getTime() - min * 60_000);
  const stats = {
    totalInputTokens: 1200,
    totalOutputTokens: 300,
    totalCost: 0.0123,
    callCount: 4,
    chainsCompressed: 1,
    rangesSummarized: 0,
  };
  await sql`insert into tenants (id, name) values ('t-alpha', 'Alpha'), ('t-beta', 'Beta')`;
  for (const [tenant, session] of [
    ["t-alpha", "s-1"],
    ["t-alpha", "s-2"],
    ["t-beta", "s-9"],
  ] as const) {
    await sql`insert into sessions (tenant_id, session_id, next_ref, version, stats, last_capture_at, last_flush_at)
      values (${tenant}, ${session}, 5, 7, ${sql.json(stats)}, ${ago(5)}, ${ago(4)})`;
  }
  const outcomes = [
    "summarized",
    "summarized",
    "skipped-deduped",
    "skipped-oversized",
    "skipped-trivial",
    "empty",
    "error",
    "summarized",
  ] as const;
  const bodySources = ["llm-primary", "deterministic,llm-fallback", null, null, null, null, null, "llm-fallback"];
  for (let i = 0; i < outcomes.length; i++) {
    const [tenant, session] = i % 3 === 2 ? ["t-beta", "s-9"] : ["t-alpha", "s-1"];
    const requestedAt = ago(200 - i * 20);
    const [req] =
      await sql`insert into flush_requests (tenant_id, session_id, trigger, status, requested_at, completed_at, committed_version, cursor)
      values (${tenant}, ${session}, ${i % 2 ? "tool-count" : "idle"}, ${outcomes[i] === "error" ? "failed" : "committed"}, ${requestedAt}, ${new Date(requestedAt.getTime() + 1500 + i * 100)}, ${i + 1}, ${i * 3})
      returning id`;
    await sql`insert into flush_metrics (tenant_id, session_id, flush_request_id, attempt, trigger, outcome, reason, captured_batches, processed_batches,
        attempted_calls, dedup_hits, raw_chars, summary_chars, queue_wait_ms, run_ms, model, body_source, input_tokens, output_tokens, cost, fidelity_score, worker_id, created_at, metrics)
      values (${tenant}, ${session}, ${req!.id}, 1, 'idle', ${outcomes[i]!}, ${outcomes[i] === "error" ? "summarizer timeout" : null}, 2, 2,
        ${4 + i}, ${i % 3}, ${10_000 + i * 1000}, ${1500 + i * 100}, ${20 + i}, ${800 + i * 50}, ${bodySources[i] ? "anthropic/claude-haiku-4-5" : null},
        ${bodySources[i] ?? null}, 900, 150, ${0.002 * (i + 1)}, ${bodySources[i] ? 0.8 + i / 100 : null}, ${`w-${i % 2}`}, ${ago(190 - i * 20)},
        ${sql.json({ expectedCacheWriteTokens: 1000 + i, expectedCacheReadSavedTokens: 20_000 + i, agentModel: "anthropic/claude-sonnet-4-5" })})`;
  }
  await sql`insert into flush_requests (tenant_id, session_id, trigger, status, requested_at) values ('t-alpha', 's-2', 'manual', 'queued', ${ago(1)})`;
  const ms = (min: number) => ago(min).getTime();
  const records = [
    ["t-alpha", "s-1", "k1", "bash", "t1", "sum-1", null],
    ["t-alpha", "s-1", "k2", "read", "t2", "sum-1", null],
    ["t-alpha", "s-1", "k3", "read", "t3", null, 120_000],
    ["t-beta", "s-9", "k4", "grep", "t1", "sum-9", null],
  ] as const;
  for (const [tenant, session, key, tool, ref, summaryId, storedBytes] of records) {
    await sql`insert into tool_call_records (tenant_id, session_id, key, tool_call_id, tool_name, args, result_text, turn_index, batch_timestamp, short_ref, summary_id, stored_bytes, version)
      values (${tenant}, ${session}, ${key}, ${`call-${key}`}, ${tool}, ${sql.json({ path: "/x" })}, ${storedBytes ? "" : "output ".repeat(40)}, 1, ${ms(120)}, ${ref}, ${summaryId}, ${storedBytes}, 3)`;
    await sql`insert into captures (tenant_id, session_id, occurrence_key, capture_id, batch_index, call_index, tool_call_id, tool_name, args, result_text, turn_index, batch_timestamp, status)
      values (${tenant}, ${session}, ${key}, 'cap-1', 0, 0, ${`call-${key}`}, ${tool}, ${sql.json({})}, 'output', 1, ${ms(130)}, ${summaryId ? "summarized" : "stored"})`;
  }
  await sql`insert into captures (tenant_id, session_id, occurrence_key, capture_id, batch_index, call_index, tool_call_id, tool_name, args, result_text, turn_index, batch_timestamp)
    values ('t-alpha', 's-1', 'k5', 'cap-2', 0, 0, 'call-k5', 'bash', ${sql.json({})}, 'fresh', 2, ${ms(3)})`;
  await sql`insert into summaries (tenant_id, session_id, id, text, refs, coverage, tool_names, turn_index, timestamp, version)
    values ('t-alpha', 's-1', 'sum-1', 'summary', ${sql.json([])}, ${sql.json(["k1", "k2"])}, ${sql.json(["bash", "read"])}, 1, ${ms(100)}, 3)`;
  await sql`insert into recoveries (tenant_id, session_id, query, tool_name, key, ref, at)
    values ('t-alpha', 's-1', 't2', 'read', 'k2', 't2', ${ago(30)}), ('t-beta', 's-9', 't1', 'grep', 'k4', 't1', ${ago(20)})`;
  await sql`insert into chains (tenant_id, session_id, block_id, start_user_timestamp, dropped_tool_call_ids, tool_refs, compressed_at, body_source, version)
    values ('t-alpha', 's-1', 'b1', ${ms(150)}, ${sql.json(["call-k1", "call-k2"])}, ${sql.json(["t1", "t2"])}, ${ms(60)}, 'llm', 5)`;
  await sql`insert into diagnostics (tenant_id, session_id, kind, dedup_key, detail, created_at)
    values ('t-alpha', 's-1', 'malformed-message', 'm-1', 'assistant message without content', ${ago(15)})`;
}
