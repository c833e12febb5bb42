/**
 * `pnpm bench:pi`: what Condense costs a pi user. Real pi (headless, `--mode json`) against a local
 * fake provider answering each agent request in ~50 ms, one scripted run of STEPS tool-calling steps,
 * three variants in the same run and interleaved per repetition:
 *   - bare:  pi with no extension;
 *   - cold:  pi with Condense and a fresh agent dir (no data directory, no service: the first need
 *            starts the local service);
 *   - warm:  pi with Condense again on that agent dir (the service is running, the data is there).
 * Measured per run: time from spawning pi to the first LLM request, wall time per agent step (from
 * one agent request to the next: the model's 50 ms plus the tool plus pi plus Condense), pi's CPU
 * time per step (user + system from /proc/<pid>/stat over the step phase: far less noisy than wall
 * time on a loaded host), with BENCH_PI_PROBE=1 pi's path per step (the probe extension
 * pi-step-probe.mjs, loaded in every variant: from a tool's end to the next request's body on the wire,
 * the part of a step the extension can lengthen, without the model's wait and the tool's run), peak RSS of the pi process (VmHWM) and,
 * at the end, of the local service. Condense settings make budget flushes
 * and stubs happen inside the run, so the service works while the agent does.
 *
 * Env: BENCH_PI_STEPS (default 40), BENCH_PI_REPS (default 3), BENCH_PI_BASELINE_EXTENSION_DIR
 * (another checkout's packages/pi-extension, run under that checkout's own pi: adds its cold and warm runs, "base-cold"/"base-warm", to
 * the same run, e.g. the design before the local service), BENCH_PI_BASELINE_ENV (JSON: env added to
 * the baseline's runs only, e.g. `{"CONDENSE_SHUTDOWN_DRAIN_MS":"1"}` with this checkout as the baseline
 * for an A/B of one setting), BENCH_PI_PROF
 * (a directory: pi runs with --cpu-prof there), BENCH_PI_REPLAY=0 to skip the replay timing (the README's
 * `condense replay` of its sample through the linked bin; with a baseline, its checkout's replay is timed
 * too, alternating; wall and CPU time of each), BENCH_PI_KEEP=1
 * to keep the temporary homes (the service's log holds every request's duration), BENCH_PI_VERBOSE=1 for
 * each run's per-step wall time and pi's and the service's CPU per step, BENCH_PI_PRESTARTED=1 to add
 * "pre": a fresh agent dir whose local service the bench starts (the prebuilt one pi would start) and
 * waits for before pi is spawned, so the cold data and the fresh service's warm-up are in the run but
 * not the service's start (pre against cold: what the start costs pi's steps; pre against warm: what a
 * fresh service costs once it is up).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localServiceHost } from "@condense/client";
import { freshPrebuilt } from "@condense/config/prebuilt-freshness";
import { dataDirOwner } from "@condense/service";
import { startFakeLlm, type FakeLlm, type Scenario } from "@condense/test-support/fake-llm";
import { stopLocalService } from "../e2e/local-service-support.ts";
import { EXTENSION_DIR, piEnv, preparePiHome, REPO, spawnPi, type PiHome } from "../e2e/pi-runner.ts";
import { FAKE_CONTEXT_WINDOW, SCENARIO_SETTINGS } from "../e2e/scenario.ts";
import { localDataDir } from "../e2e/scenario-run.ts";

const STEPS = Number(process.env.BENCH_PI_STEPS) || 40;
const REPS = Number(process.env.BENCH_PI_REPS) || 3;
const BASELINE = process.env.BENCH_PI_BASELINE_EXTENSION_DIR;
const PROF = process.env.BENCH_PI_PROF;
const BASELINE_ENV = JSON.parse(process.env.BENCH_PI_BASELINE_ENV ?? "{}") as Record<string, string>;
const PRESTARTED = process.env.BENCH_PI_PRESTARTED === "1";
/** This checkout and the baseline's (its packages/pi-extension's repository). */
const CHECKOUTS = BASELINE ? [REPO, join(BASELINE, "../..")] : [REPO];

/** Starts the local service pi would start for `home` (the prebuilt one, pi's env) and waits until it answers. */
async function prestartService(home: PiHome): Promise<void> {
  await localServiceHost({
    dataDir: localDataDir(home),
    command: { file: process.execPath, args: [join(EXTENSION_DIR, ".prebuilt/dist/service.js")] },
    env: piEnv(home),
  }).ensure();
}

/**
 * The probe extension (pi-step-probe.mjs, with BENCH_PI_PROBE=1): pi's own time per step, from a tool's end
 * to the next request on the wire. Opt-in: loading any extension makes bare pi load its TypeScript loader
 * too, which would hide that part of Condense's cost in the first-request figure.
 */
const PROBE = process.env.BENCH_PI_PROBE === "1" ? join(REPO, "test/bench/pi-step-probe.mjs") : null;

const bench: Scenario = (step) =>
  step < STEPS
    ? { calls: [{ name: "bash", args: { command: `echo step-${step}; seq ${step * 100} ${step * 100 + 400}` } }] }
    : { text: "bench done." };

interface RunResult {
  variant: string;
  firstRequestMs: number;
  steps: number[];
  piPeakRssMb: number;
  servicePeakRssMb: number | null;
  /** pi's own CPU time (user + system, its threads, not its tool children) per step of the step phase. */
  piCpuPerStepMs: number;
  /** pi's CPU time from its start to the first LLM request (startup and the extension's load). */
  piCpuToFirstRequestMs: number;
  /** Per step: from a tool's end to the next request's body on the wire, on pi's side (the probe). */
  piPath: number[];
  /** Per step: pi's CPU time and the local service's over the step (from 20 ms samples, so coarse per step). */
  piCpuMs: number[];
  serviceCpuMs: number[];
  /** The local service's CPU time before pi's first LLM request and over the whole run (null without Condense). */
  serviceCpuToFirstRequestMs: number | null;
  serviceCpuRunMs: number | null;
  wallMs: number;
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLK_TCK = 100;

/** CPU time (user + system) of one process so far, in ms, or null once it is gone. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) in parentheses: utime is the 14th field.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/** CPU time (user + system) of this process's children that have exited and been waited for, in ms. */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK;
}

/** The last CPU sample taken at or before `at` (samples are in time order). */
function cpuAt(samples: { at: number; cpu: number }[], at: number): number {
  let v = samples[0]?.cpu ?? 0;
  for (const s of samples) {
    if (s.at > at) break;
    v = s.cpu;
  }
  return v;
}

/**
 * The local service pi started for `dataDir`, found from its spawn on (before it holds the owner lock,
 * which it takes only after loading its modules): pi's child whose working directory is the data
 * directory (the client spawns it there). Null until then, or when pi started none.
 */
function serviceChildOf(piPid: number, dataDir: string): number | null {
  let children: string[];
  try {
    children = readFileSync(`/proc/${piPid}/task/${piPid}/children`, "utf8").split(" ").filter(Boolean);
  } catch {
    return null;
  }
  for (const c of children) {
    try {
      if (readlinkSync(`/proc/${c}/cwd`) === dataDir) return Number(c);
    } catch {
      /* exited */
    }
  }
  return null;
}

function vmHwmMb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** pi of the checkout that holds a baseline's `ext`: it runs under its own pi, never loading a second copy of pi's modules. */
const baselinePi = (ext: string | null) =>
  ext && ext !== EXTENSION_DIR
    ? {
        pi: {
          bin: join(ext, "node_modules/.bin/pi"),
          cli: join(ext, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js"),
        },
      }
    : undefined;

async function runOnce(
  llm: FakeLlm,
  home: PiHome,
  variant: string,
  ext: string | null,
  extraEnv: Record<string, string> = {},
): Promise<RunResult> {
  const withCondense = ext !== null;
  const from = llm.requests.length;
  const started = Date.now();
  const probeOut = join(home.root, `probe-${variant}-${started}.txt`);
  const child = spawnPi(home, {
    args: [...(PROBE ? ["-e", PROBE] : []), "SCENARIO B: run the steps"],
    extension: ext,
    env: { ...extraEnv, BENCH_PI_PROBE_OUT: probeOut },
    ...(baselinePi(ext) ?? {}),
    ...(PROF ? { cpuProfDir: join(PROF, variant) } : {}),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let peak = 0;
  const cpu: { at: number; cpu: number }[] = [];
  // The local service's CPU over the run (cold: from its start), to see what competes with pi's steps.
  const serviceCpu: { at: number; cpu: number }[] = [];
  const condenseDir = localDataDir(home);
  let servicePid: number | null = null;
  const poll = setInterval(() => {
    const at = Date.now();
    const v = vmHwmMb(child.pid!);
    if (v !== null) peak = Math.max(peak, v);
    const c = cpuMs(child.pid!);
    if (c !== null) cpu.push({ at, cpu: c });
    if (!withCondense) return;
    servicePid ??= serviceChildOf(child.pid!, condenseDir) ?? dataDirOwner(condenseDir)?.pid ?? null;
    const sc = servicePid === null ? null : cpuMs(servicePid);
    serviceCpu.push({ at, cpu: sc ?? serviceCpu.at(-1)?.cpu ?? 0 });
  }, 20);
  const code = await new Promise<number | null>((r) => child.on("close", r));
  clearInterval(poll);
  const wallMs = Date.now() - started;
  if (code !== 0) throw new Error(`${variant}: pi exited ${code}\n${stderr.slice(-3000)}`);
  const agent = llm.requests
    .slice(from)
    .filter((r) => r.kind === "agent")
    .sort((a, b) => a.receivedAt - b.receivedAt);
  if (agent.length < STEPS) throw new Error(`${variant}: only ${agent.length} agent requests`);
  const steps: number[] = [];
  for (let i = 1; i < agent.length; i++) steps.push(agent[i]!.receivedAt - agent[i - 1]!.receivedAt);
  const owner = withCondense ? dataDirOwner(condenseDir) : null;
  const perStep = (samples: { at: number; cpu: number }[]) =>
    agent.slice(1).map((r, i) => cpuAt(samples, r.receivedAt) - cpuAt(samples, agent[i]!.receivedAt));
  let piPath: number[] = [];
  try {
    piPath = readFileSync(probeOut, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    /* the probe wrote nothing (pi exited before its shutdown) */
  }
  return {
    piPath,
    piCpuMs: perStep(cpu),
    serviceCpuMs: withCondense ? perStep(serviceCpu) : [],
    serviceCpuToFirstRequestMs: withCondense
      ? cpuAt(serviceCpu, agent[0]!.receivedAt) - (serviceCpu[0]?.cpu ?? 0)
      : null,
    serviceCpuRunMs: withCondense ? (serviceCpu.at(-1)?.cpu ?? 0) - (serviceCpu[0]?.cpu ?? 0) : null,
    variant,
    firstRequestMs: agent[0]!.receivedAt - started,
    steps,
    piPeakRssMb: peak,
    servicePeakRssMb: owner ? vmHwmMb(owner.pid) : null,
    piCpuToFirstRequestMs: cpuAt(cpu, agent[0]!.receivedAt),
    piCpuPerStepMs: (cpuAt(cpu, agent.at(-1)!.receivedAt) - cpuAt(cpu, agent[0]!.receivedAt)) / (agent.length - 1),
    wallMs,
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (x: number) => Math.round(x * 10) / 10;
/** The first steps of a run (the cold service's start lands in them) against the rest. */
const EARLY = 10;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The prebuilt bundles each checkout's pi and replay run (the extension and the service it starts, the
 * CLI): a stale one is skipped for the TypeScript source, which pi transpiles at every start and which
 * starts the service through tsx, so a bench of a checkout edited since its last `pnpm install` would
 * time the source instead. Rebuilt here when stale, as `pnpm install` would.
 */
function freshenBundles(repo: string): void {
  const bundles = [
    {
      dir: "packages/pi-extension",
      fresh: (dir: string) => freshPrebuilt(dir, { outputs: ["dist/index.js", "dist/service.js"] }),
      build: ["--prebuilt"],
    },
    // apps/cli/bin/fresh-bundle.mjs's rule: only in the checkout that built it.
    {
      dir: "apps/cli",
      fresh: (dir: string) => freshPrebuilt(dir, { outputs: ["dist/main.js"], sameCheckout: true }),
      build: [],
    },
  ];
  for (const b of bundles) {
    const dir = join(repo, b.dir);
    if (b.fresh(dir)) continue;
    console.log(`bench:pi: ${dir}'s prebuilt bundle is stale or missing: rebuilding it`);
    const r = spawnSync(process.execPath, [join(dir, "scripts/bundle.mjs"), ...b.build], {
      cwd: repo,
      encoding: "utf8",
    });
    if (r.status !== 0 || !b.fresh(dir))
      throw new Error(`could not rebuild ${b.dir}'s bundle in ${repo} (run pnpm install there): ${r.stderr}`);
  }
}

async function main(): Promise<void> {
  for (const repo of CHECKOUTS) freshenBundles(repo);
  const llm = await startFakeLlm({ scenarios: { B: bench }, agentDelayMs: 50 });
  const results: RunResult[] = [];
  const roots: string[] = [];
  const home = (tag: string) => {
    const root = mkdtempSync(join(tmpdir(), `condense-bench-pi-${tag}-`));
    roots.push(root);
    return preparePiHome(root, llm.baseUrl, SCENARIO_SETTINGS, FAKE_CONTEXT_WINDOW);
  };
  try {
    for (let rep = 0; rep < REPS; rep++) {
      results.push(await runOnce(llm, home("bare"), "bare", null));
      const h = home("condense");
      results.push(await runOnce(llm, h, "cold", EXTENSION_DIR));
      results.push(await runOnce(llm, h, "warm", EXTENSION_DIR));
      await stopLocalService(localDataDir(h)).catch(() => {});
      if (PRESTARTED) {
        const p = home("pre");
        await prestartService(p);
        results.push(await runOnce(llm, p, "pre", EXTENSION_DIR));
        await stopLocalService(localDataDir(p)).catch(() => {});
      }
      if (BASELINE) {
        const b = home("baseline");
        results.push(await runOnce(llm, b, "base-cold", BASELINE, BASELINE_ENV));
        results.push(await runOnce(llm, b, "base-warm", BASELINE, BASELINE_ENV));
        await stopLocalService(localDataDir(b)).catch(() => {});
      }
      process.stderr.write(`rep ${rep + 1}/${REPS} done\n`);
    }
  } finally {
    await llm.close();
  }

  const variants = [
    "bare",
    "cold",
    "warm",
    ...(PRESTARTED ? ["pre"] : []),
    ...(BASELINE ? ["base-cold", "base-warm"] : []),
  ];
  const rows = variants.map((variant) => {
    const rs = results.filter((r) => r.variant === variant);
    const steps = rs.flatMap((r) => r.steps);
    const svc = rs.map((r) => r.servicePeakRssMb).filter((x): x is number => x !== null);
    return {
      variant,
      runs: rs.length,
      firstRequestMs: median(rs.map((r) => r.firstRequestMs)),
      stepMedianMs: median(steps),
      stepP95Ms: pct(steps, 95),
      piCpuPerStepMs: median(rs.map((r) => r.piCpuPerStepMs)),
      piCpuToFirstRequestMs: median(rs.map((r) => r.piCpuToFirstRequestMs)),
      piPathMedianMs: PROBE ? median(rs.flatMap((r) => r.piPath)) : Number.NaN,
      earlyStepMedianMs: median(rs.flatMap((r) => r.steps.slice(0, EARLY))),
      lateStepMedianMs: median(rs.flatMap((r) => r.steps.slice(EARLY))),
      earlyPiCpuPerStepMs: median(rs.map((r) => sum(r.piCpuMs.slice(0, EARLY)) / EARLY)),
      latePiCpuPerStepMs: median(rs.map((r) => sum(r.piCpuMs.slice(EARLY)) / Math.max(1, r.piCpuMs.length - EARLY))),
      earlyServiceCpuPerStepMs: median(rs.map((r) => sum(r.serviceCpuMs.slice(0, EARLY)) / EARLY)),
      serviceCpuToFirstRequestMs: median(rs.map((r) => r.serviceCpuToFirstRequestMs ?? 0)),
      serviceCpuRunMs: median(rs.map((r) => r.serviceCpuRunMs ?? 0)),
      lateServiceCpuPerStepMs: median(
        rs.map((r) => sum(r.serviceCpuMs.slice(EARLY)) / Math.max(1, r.serviceCpuMs.length - EARLY)),
      ),
      piPeakRssMb: median(rs.map((r) => r.piPeakRssMb)),
      servicePeakRssMb: svc.length ? median(svc) : null,
      wallMs: median(rs.map((r) => r.wallMs)),
    };
  });
  const bare = rows[0]!;
  console.log(`bench:pi — ${STEPS} steps, ${REPS} reps, fake provider 50 ms, baseline ${BASELINE ?? "none"}`);
  console.log(
    "variant  first-request  pi-CPU-to-first  step-median  step-p95  pi-path/step  pi-CPU/step  pi-peak-RSS  service-peak-RSS  wall",
  );
  for (const r of rows) {
    console.log(
      `${r.variant.padEnd(9)} ${String(r.firstRequestMs).padStart(8)} ms  ${String(r.piCpuToFirstRequestMs).padStart(8)} ms  ${String(r1(r.stepMedianMs)).padStart(8)} ms  ${String(r.stepP95Ms).padStart(5)} ms  ${PROBE ? `${String(r1(r.piPathMedianMs)).padStart(7)} ms` : "      -   "}  ${String(r1(r.piCpuPerStepMs)).padStart(7)} ms  ${String(r1(r.piPeakRssMb)).padStart(7)} MB  ${r.servicePeakRssMb === null ? "      -" : `${String(r1(r.servicePeakRssMb)).padStart(9)} MB`}  ${r.wallMs} ms`,
    );
  }
  for (const r of rows.slice(1)) {
    console.log(
      `${r.variant} vs bare: first request ${r.firstRequestMs - bare.firstRequestMs >= 0 ? "+" : ""}${r.firstRequestMs - bare.firstRequestMs} ms (target <= +300), pi CPU to it ${r1(r.piCpuToFirstRequestMs - bare.piCpuToFirstRequestMs)} ms, median step ${r1(r.stepMedianMs - bare.stepMedianMs)} ms (target <= +2)${PROBE ? `, pi's path per step (tool end to request on the wire) ${r1(r.piPathMedianMs - bare.piPathMedianMs)} ms` : ""}, pi CPU per step ${r1(r.piCpuPerStepMs - bare.piCpuPerStepMs)} ms, pi peak RSS +${r1(r.piPeakRssMb - bare.piPeakRssMb)} MB (target <= +60)`,
    );
  }
  console.log(
    `steps 1-${EARLY} against the rest (medians; CPU per step from 20 ms samples): variant  step early/late  pi CPU early/late  service CPU early/late  service CPU to first request, whole run`,
  );
  for (const r of rows)
    console.log(
      `${r.variant.padEnd(9)} ${r1(r.earlyStepMedianMs)}/${r1(r.lateStepMedianMs)} ms  ${r1(r.earlyPiCpuPerStepMs)}/${r1(r.latePiCpuPerStepMs)} ms  ${r.variant === "bare" ? "-" : `${r1(r.earlyServiceCpuPerStepMs)}/${r1(r.lateServiceCpuPerStepMs)} ms  ${r.serviceCpuToFirstRequestMs}, ${r.serviceCpuRunMs} ms`}`,
    );
  const replays: { repo: string; wallMs: number; cpuMs: number }[] = [];
  if (process.env.BENCH_PI_REPLAY !== "0") {
    // The baseline checkout's replay alternates with this one's; CPU is the child's user + system time.
    for (let rep = 0; rep < Math.max(1, Math.min(REPS, 2)); rep++)
      for (const repo of CHECKOUTS) {
        const cpu0 = childrenCpuMs();
        const t0 = Date.now();
        const r = spawnSync(
          process.execPath,
          // The README's command: the linked bin, which runs the CLI's prebuilt bundle (fresh: see above).
          [join(repo, "apps/cli/bin/condense.mjs"), "replay", join(repo, "examples/sample-session.jsonl")],
          { cwd: repo, encoding: "utf8" },
        );
        const wallMs = Date.now() - t0;
        if (r.status !== 0) throw new Error(`replay in ${repo} failed: ${r.stderr}`);
        replays.push({ repo, wallMs, cpuMs: childrenCpuMs() - cpu0 });
        console.log(
          `condense replay examples/sample-session.jsonl (${repo === REPO ? "this checkout" : "baseline"}): ${wallMs} ms wall, ${Math.round(childrenCpuMs() - cpu0)} ms CPU (target < 3000 wall)`,
        );
      }
  }
  const replayMs = replays.find((r) => r.repo === REPO)?.wallMs ?? null;
  console.log(
    JSON.stringify({
      steps: STEPS,
      reps: REPS,
      rows,
      replayMs,
      replays,
      runs: results.map(({ steps, piPath, piCpuMs, serviceCpuMs, ...rest }) => ({
        ...rest,
        piPathMedianMs: piPath.length ? median(piPath) : null,
        stepMedianMs: median(steps),
        stepMaxMs: Math.max(...steps),
        stepsMs: process.env.BENCH_PI_VERBOSE ? steps : undefined,
        piCpuMs: process.env.BENCH_PI_VERBOSE ? piCpuMs : undefined,
        serviceCpuMs: process.env.BENCH_PI_VERBOSE ? serviceCpuMs : undefined,
      })),
    }),
  );
  // BENCH_PI_KEEP=1 keeps the homes (sessions, the service's log with each request's duration) for a look.
  if (process.env.BENCH_PI_KEEP === "1") console.error(`kept: ${roots.join(" ")}`);
  else for (const root of roots) rmSync(root, { recursive: true, force: true });
}

await main();
