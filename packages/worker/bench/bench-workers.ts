/** Worker processes for the bench: `node --import tsx apps/worker/src/main.ts`, ready over IPC. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../..");

export interface BenchWorker {
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function spawnBenchWorker(id: string, env: Record<string, string>): BenchWorker {
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_WORKER_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`] : []),
      "--import",
      "tsx",
      resolve(ROOT, "apps/worker/src/main.ts"),
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", WORKER_ID: id, ...env },
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    },
  );
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const ready = new Promise<void>((res, rej) => {
    proc.on("message", (m: { type?: string }) => {
      if (m?.type === "ready") res();
    });
    void exited.then(() => rej(new Error(`bench worker ${id} exited before ready`)));
  });
  ready.catch(() => {});
  return {
    ready,
    stop: async () => {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await exited;
      }
    },
  };
}
