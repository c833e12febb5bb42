/**
 * `pnpm bench:api`: autocannon on loopback, 50 connections, against a real API server in a child
 * process (embedded PGlite, and Postgres in its own scratch database when DATABASE_URL is set).
 * Scenarios: capture ingest (unique calls per request, so every request inserts), state delta
 * (full snapshot of a 200-record session) and context_tree_query (a tN, an occurrence key and a
 * 50-occurrence reused id). Prints a table and rewrites its own section of docs/benchmarks.md
 * (`--no-write` skips the page).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, loadavg, totalmem, type as osType, release } from "node:os";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { createScratchDatabase, type ScratchDatabase } from "@condense/db";
import { writeBenchSection, writesBenchmarksDoc } from "@condense/test-support/benchmarks-doc";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../../..");
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;

interface Row {
  target: string;
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function startChild(
  databaseUrl: string | undefined,
): Promise<{ child: ChildProcess; url: string; key: string; records: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(here, "bench-server.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((res, rej) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once("line", res);
    child.once("exit", (code) => rej(new Error(`bench server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { url: string; key: string; records: number }) };
}

async function run(target: string, url: string, key: string): Promise<Row[]> {
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  let n = 0;
  const text = "y".repeat(2000);
  const scenarios: { scenario: string; opts: autocannon.Options }[] = [
    {
      scenario: "capture ingest (1 batch x 3 calls, 6 KB)",
      opts: {
        url,
        requests: [
          {
            method: "POST",
            path: "/v1/sessions/ingest/captures",
            headers: auth,
            setupRequest: (req) => {
              const i = ++n;
              const calls = [0, 1, 2].map((c) => ({
                toolCallId: `c${i}_${c}`,
                toolName: "bash",
                args: { cmd: `echo ${i}` },
                resultText: text,
                isError: false,
                resultTimestamp: i * 10 + c,
              }));
              return {
                ...req,
                body: JSON.stringify({
                  captureId: `cap-${i}`,
                  batches: [{ turnIndex: i, timestamp: i, assistantText: "", toolCalls: calls }],
                }),
              };
            },
          },
        ],
      },
    },
    {
      scenario: "state delta (since=0, 200 records)",
      opts: { url: `${url}/v1/sessions/bench/state?since=0`, headers: auth },
    },
    {
      scenario: "query (t7 + occurrence key + id with 50 occurrences)",
      opts: {
        url: `${url}/v1/sessions/bench/query`,
        method: "POST",
        headers: auth,
        body: JSON.stringify({ toolCallIds: ["t7", "call_3_1@1700000003501", "bash_7"] }),
      },
    },
  ];
  const rows: Row[] = [];
  for (const s of scenarios) {
    const r = await autocannon({ ...s.opts, connections: CONNECTIONS, duration: DURATION });
    rows.push({
      target,
      scenario: s.scenario,
      rps: Math.round(r.requests.average),
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
    });
    console.log(
      `${target} | ${s.scenario}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
    );
  }
  return rows;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

const rows: Row[] = [];
{
  const s = await startChild(undefined);
  try {
    rows.push(...(await run("PGlite (embedded)", s.url, s.key)));
  } finally {
    await stop(s.child);
  }
}
const pgAdmin = process.env.DATABASE_URL ?? "";
if (pgAdmin.startsWith("postgres")) {
  let scratch: ScratchDatabase | undefined;
  try {
    scratch = await createScratchDatabase(pgAdmin, "condense_bench");
    const s = await startChild(scratch.url);
    try {
      rows.push(...(await run("Postgres", s.url, s.key)));
    } finally {
      await stop(s.child);
    }
  } finally {
    await scratch?.drop();
  }
} else {
  console.warn("DATABASE_URL not set: Postgres target skipped");
}

const cpu = cpus();
// The load average says whether other work shared the cores during the run (it often does here).
const machine = `${cpu.length} x ${cpu[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, ${osType()} ${release()}, Node ${process.version}; load average at the end ${loadavg()
  .map((l) => l.toFixed(1))
  .join("/")} (1/5/15 min)`;
const table = [
  "| target | scenario | req/s | p50 ms | p99 ms | requests | non-2xx | errors |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.target} | ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.non2xx} | ${r.errors} |`,
  ),
].join("\n");
const section = `## API (bench:api)

Command: \`pnpm bench:api\` (\`--no-write\` keeps this file; \`BENCH_DURATION\` seconds per scenario, default 10). Method:
the API runs in a child process (\`packages/api/bench/bench-server.ts\`: startServer, rate limits off, logs silent, the
in-process queue in embedded mode) and autocannon drives it from the parent over loopback with ${CONNECTIONS} connections
for ${DURATION} s per scenario, so server and load generator share the machine's cores. The seeded session has 200
summarized records in 50 summaries; \`bash_7\` is reused in all 50 batches. Capture ingest sends unique calls per
request, so every request is a committed insert. The Postgres row uses its own scratch database on the local server
(dropped afterwards). The \`errors\` column counts autocannon's 10 s request timeouts.

Current figures: run ${new Date().toISOString().slice(0, 10)}, machine ${machine}:

${table}
`;
console.log(`\n${table}`);
if (writesBenchmarksDoc()) {
  const doc = resolve(ROOT, "docs/benchmarks.md");
  writeBenchSection(doc, "## API (bench:api)", section);
  console.log(`wrote the "API (bench:api)" section of ${doc}`);
}
