/**
 * Prometheus for real: Debian's `prometheus` server on loopback, with a temp config that loads the
 * shipped alert rules and scrapes a running API and `condense worker` (both started here against
 * the real Postgres and a password-protected Redis, the worker summarizing through a local fake
 * LLM), after a capture -> flush -> state round trip gave the counters something to count. Then
 * every PromQL expression of the Grafana dashboards (Prometheus-datasource panels) and every alert
 * rule is evaluated through Prometheus's HTTP API, instant and range, and must parse and return
 * without error, and every metric they read must have been scraped from the API or the worker.
 *
 * Skips with a notice without Postgres/Redis or without the prometheus binary; in CI
 * (REQUIRE_SERVICES=1, where .ci/run installs prometheus) a missing binary fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { createDb, createScratchDatabase, migrateDb, type ScratchDatabase } from "@condense/db";
import { startFakeLlm, type FakeLlm } from "@condense/test-support/fake-llm";
import { freePort, hasBinary } from "../integration/support/throwaway-services.ts";
import { REPO_ROOT } from "@condense/test-support/sessions";
import { dashboardPromql, expandGrafanaPromql, metricNamesIn } from "./support/promql.ts";
import { captureFlushState } from "./support/round-trip.ts";
import { startProcess, waitForHttp, type ServiceProcess } from "./support/service-process.ts";

const databaseUrl = inject("databaseUrl");
const haveServices = databaseUrl.startsWith("postgres") && hasBinary("redis-server");
const havePrometheus = hasBinary("prometheus");
if (!havePrometheus && process.env.REQUIRE_SERVICES === "1")
  throw new Error("prometheus is missing: apt-get install -y prometheus (.ci/run does)");
if (!havePrometheus)
  console.warn(
    "\n!!! prometheus not installed: the live Prometheus test is SKIPPED (apt-get install -y prometheus) !!!\n",
  );
if (!haveServices)
  console.warn("[condense] live Prometheus test SKIPPED: needs a real Postgres (DATABASE_URL) and redis-server");

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
const RULES_FILE = join(REPO_ROOT, "infra/prometheus/alerts.yml");
const rules = (parseYaml(readFileSync(RULES_FILE, "utf8")) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const queries = dashboardPromql();

interface PromResponse {
  status: string;
  data?: any;
  errorType?: string;
  error?: string;
  warnings?: string[];
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  diagnose: () => string = () => "",
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${diagnose()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A private redis-server that requires a password: the fleet's REDIS_URL carries it, as in compose. */
async function startPasswordRedis(password: string): Promise<{ url: string; proc: ChildProcess; dir: string }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "condense-redis-auth-"));
  const proc = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--requirepass",
      password,
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: "ignore" },
  );
  const url = `redis://:${password}@127.0.0.1:${port}`;
  await until("redis-server with requirepass", 20_000, async () => {
    const r = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    r.on("error", () => {});
    try {
      await r.connect();
      return (await r.ping()) === "PONG" ? true : undefined;
    } finally {
      r.disconnect();
    }
  });
  return { url, proc, dir };
}

describe.skipIf(!haveServices || !havePrometheus)("Prometheus scraping a running API and worker", () => {
  const adminKey = randomBytes(16).toString("hex");
  const prefix = `condense-prom-${randomBytes(4).toString("hex")}`;
  const procs: ServiceProcess[] = [];
  let db: ScratchDatabase | undefined;
  let redis: { url: string; proc: ChildProcess; dir: string } | undefined;
  let llm: FakeLlm | undefined;
  let promDir = "";
  let prom: ServiceProcess | undefined;
  let promUrl = "";

  const api = async (path: string, params: Record<string, string> = {}): Promise<PromResponse> => {
    const r = await fetch(`${promUrl}${path}?${new URLSearchParams(params)}`);
    return (await r.json()) as PromResponse;
  };

  beforeAll(async () => {
    db = await createScratchDatabase(databaseUrl, "condense_prom");
    const handle = await createDb(db.url, { max: 1 });
    try {
      await migrateDb(handle);
    } finally {
      await handle.close();
    }
    redis = await startPasswordRedis(randomBytes(12).toString("hex"));
    llm = await startFakeLlm({ scenarios: {} });
    const [apiPort, metricsPort, promPort] = [await freePort(), await freePort(), await freePort()];
    const fleet = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      CONDENSE_REDIS_PREFIX: prefix,
      CONDENSE_MIGRATE: "false",
    };
    const tsx = [process.execPath, "--import", "tsx"];
    const apiProc = startProcess("api", [...tsx, "apps/api/src/main.ts"], {
      cwd: REPO_ROOT,
      env: {
        ...fleet,
        CONDENSE_HOST: "127.0.0.1",
        CONDENSE_PORT: String(apiPort),
        CONDENSE_ADMIN_KEY: adminKey,
        CONDENSE_RATE_LIMIT_PER_SEC: "0",
      },
    });
    const summarizerConfig = JSON.stringify({
      summarizerModel: "fake/fake-model",
      retries: 0,
      customModels: [
        { provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" },
      ],
    });
    const workerProc = startProcess(
      "condense worker",
      [...tsx, "apps/cli/src/main.ts", "worker", "--metrics-port", String(metricsPort)],
      {
        cwd: REPO_ROOT,
        env: { ...fleet, CONDENSE_WORKER_ID: `${prefix}-w1`, CONDENSE_SUMMARIZER_CONFIG: summarizerConfig },
      },
    );
    procs.push(apiProc, workerProc);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await Promise.all([
      waitForHttp(apiProc, `${apiUrl}/readyz`),
      waitForHttp(workerProc, `http://127.0.0.1:${metricsPort}/metrics`),
    ]);
    await captureFlushState(apiUrl, adminKey);
    expect(
      llm.requests.some((r) => r.kind === "summarizer"),
      "the worker summarized through the fake LLM",
    ).toBe(true);

    promDir = mkdtempSync(join(tmpdir(), "condense-prometheus-"));
    const config = {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [RULES_FILE],
      scrape_configs: [
        { job_name: "condense-api", metrics_path: "/metrics", static_configs: [{ targets: [`127.0.0.1:${apiPort}`] }] },
        {
          job_name: "condense-worker",
          metrics_path: "/metrics",
          static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }],
        },
      ],
    };
    writeFileSync(join(promDir, "prometheus.yml"), stringifyYaml(config));
    promUrl = `http://127.0.0.1:${promPort}`;
    prom = startProcess(
      "prometheus",
      [
        "prometheus",
        `--config.file=${join(promDir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(promDir, "data")}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        "--storage.tsdb.retention.time=1h",
      ],
      { cwd: promDir, env: {} },
    );
    procs.push(prom);
    await waitForHttp(prom, `${promUrl}/-/ready`, 60_000);
    // Both targets scraped successfully, at least twice (rate() needs two samples).
    await until(
      "both targets up",
      60_000,
      async () => {
        const t = await api("/api/v1/targets");
        const active = (t.data?.activeTargets ?? []) as { labels: { job: string }; health: string }[];
        return ["condense-api", "condense-worker"].every((j) =>
          active.some((a) => a.labels.job === j && a.health === "up"),
        )
          ? true
          : undefined;
      },
      () => prom!.output(),
    );
    await until("worker flush counter scraped", 60_000, async () => {
      const r = await api("/api/v1/query", { query: "condense_worker_flushes_total" });
      return (r.data?.result?.length ?? 0) > 0 ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 3000));
    // Every rule evaluated at least once.
    await until("every rule evaluated", 60_000, async () => {
      const r = await api("/api/v1/rules");
      const all = ((r.data?.groups ?? []) as { rules: { lastEvaluation: string }[] }[]).flatMap((g) => g.rules);
      return all.length === rules.length && all.every((x) => !x.lastEvaluation.startsWith("0001-")) ? true : undefined;
    });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await llm?.close();
    if (redis) {
      redis.proc.kill("SIGTERM");
      rmSync(redis.dir, { recursive: true, force: true });
    }
    await db?.drop();
    if (promDir) rmSync(promDir, { recursive: true, force: true });
  }, 60_000);

  it("has dashboards with Prometheus panels to check", () => {
    expect(queries.length).toBeGreaterThan(5);
  });

  it("every metric the dashboards and rules read was scraped from the API or the worker", async () => {
    const meta = await api("/api/v1/metadata");
    expect(meta.status).toBe("success");
    const scraped = new Set(Object.keys(meta.data as Record<string, unknown>));
    const missing = [...queries.map((q) => q.expr), ...rules.map((r) => r.expr)]
      .flatMap(metricNamesIn)
      .filter((m) => !scraped.has(m));
    expect([...new Set(missing)], "read by a panel or rule but exported by neither target").toEqual([]);
  });

  it("every dashboard expression parses and returns, instant and over a range", async () => {
    const end = Date.now() / 1000;
    for (const q of queries) {
      const expr = expandGrafanaPromql(q.expr);
      const instant = await api("/api/v1/query", { query: expr });
      expect(instant, `${q.dashboard} / ${q.panel}: ${expr}`).toMatchObject({ status: "success" });
      expect(instant.warnings ?? [], expr).toEqual([]);
      const range = await api("/api/v1/query_range", {
        query: expr,
        start: String(end - 120),
        end: String(end),
        step: "5",
      });
      expect(range, `${q.dashboard} / ${q.panel} (range): ${expr}`).toMatchObject({ status: "success" });
    }
  });

  it("every alert rule parses and returns, and Prometheus evaluates it without error", async () => {
    for (const r of rules) {
      const res = await api("/api/v1/query", { query: r.expr });
      expect(res, `${r.alert ?? r.record}: ${r.expr}`).toMatchObject({ status: "success" });
    }
    const loaded = await api("/api/v1/rules");
    const evaluated = (
      (loaded.data?.groups ?? []) as { rules: { name: string; health: string; lastError?: string }[] }[]
    ).flatMap((g) => g.rules);
    expect(evaluated.map((e) => e.name).sort()).toEqual(rules.map((r) => r.alert ?? r.record).sort());
    for (const e of evaluated)
      expect({ name: e.name, health: e.health, lastError: e.lastError ?? "" }).toEqual({
        name: e.name,
        health: "ok",
        lastError: "",
      });
  });

  it("the scraped counters reflect the round trip: a committed flush, ingested captures, summarizer tokens", async () => {
    const value = async (q: string) =>
      Number(((await api("/api/v1/query", { query: q })).data?.result?.[0]?.value ?? [0, "0"])[1]);
    expect(await value("sum(condense_worker_flushes_total)")).toBeGreaterThanOrEqual(1);
    expect(await value("sum(condense_api_captures_ingested_total)")).toBe(2);
    expect(await value('sum(condense_summarizer_tokens_total{kind="input"})')).toBeGreaterThan(0);
  });
});
