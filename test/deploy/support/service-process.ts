/**
 * Condense processes for the deploy suites: spawned with a clean environment (nothing inherited
 * from vitest, so no loader or NODE_OPTIONS can help them start), output kept for failure messages,
 * readiness by polling an HTTP endpoint, and a stop that escalates to SIGKILL.
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface ServiceProcess {
  name: string;
  proc: ChildProcess;
  /** The last 20 kB of stdout and stderr. */
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export function startProcess(
  name: string,
  argv: string[],
  opts: { cwd: string; env: Record<string, string> },
): ServiceProcess {
  const proc = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      CONDENSE_LOG_LEVEL: "warn",
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill("SIGTERM");
    const t = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(t);
  };
  return { name, proc, output: () => out, exited, stop };
}

/** Runs a process to completion; rejects with its output when it exits non-zero. */
export async function runToExit(
  name: string,
  argv: string[],
  opts: { cwd: string; env: Record<string, string> },
  timeoutMs = 60_000,
): Promise<string> {
  const p = startProcess(name, argv, opts);
  const timer = setTimeout(() => p.proc.kill("SIGKILL"), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${name} exited with ${code}:\n${p.output()}`);
  return p.output();
}

/** Polls `url` until it answers 200; fails early, with the process output, if the process exits. */
export async function waitForHttp(p: ServiceProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < until) {
    if (p.proc.exitCode !== null)
      throw new Error(`${p.name} exited with ${p.proc.exitCode} before ${url} answered:\n${p.output()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${p.name}: ${url} did not answer 200 in ${timeoutMs} ms (last: ${last}):\n${p.output()}`);
}
