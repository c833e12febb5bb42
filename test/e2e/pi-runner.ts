/**
 * Runs the real pi binary in a hermetic home: its own HOME and PI_CODING_AGENT_DIR in a temp dir,
 * PI_OFFLINE=1, retries and pi's own compaction off, only the Condense extension loaded
 * (`-e packages/pi-extension`), and the fake LLM registered as a custom provider in models.json.
 * Headless to its exit (`runPi`), in RPC mode (`startRpcPi`), or spawned as is (`spawnPi`, the bench).
 */
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
export const REPO = resolve(here, "../..");
export const PI_BIN = join(REPO, "packages/pi-extension/node_modules/.bin/pi");
export const EXTENSION_DIR = join(REPO, "packages/pi-extension");

export interface PiHome {
  root: string;
  agentDir: string;
  workDir: string;
  sessionDir: string;
}

/**
 * `condenseSettings` null leaves the `condense` key out of pi's settings (no Condense configuration at
 * all); `piSettings` is merged over the defaults below (e.g. `{ compaction: { enabled: true, ... } }`).
 */
export function preparePiHome(
  root: string,
  fakeBaseUrl: string,
  condenseSettings: Record<string, unknown> | null,
  contextWindow: number,
  piSettings: Record<string, unknown> = {},
): PiHome {
  const agentDir = join(root, "agent");
  const workDir = join(root, "work");
  const sessionDir = join(root, "sessions");
  for (const d of [agentDir, workDir, sessionDir]) mkdirSync(d, { recursive: true });
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify(
      {
        providers: {
          fake: {
            baseUrl: fakeBaseUrl,
            api: "openai-completions",
            apiKey: "fake-key",
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [
              {
                id: "fake-model",
                name: "Fake Model",
                reasoning: false,
                input: ["text"],
                contextWindow,
                maxTokens: 4096,
                cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
              },
            ],
          },
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(agentDir, "settings.json"),
    `${JSON.stringify(
      {
        retry: { enabled: false },
        compaction: { enabled: false },
        ...(condenseSettings ? { condense: condenseSettings } : {}),
        ...piSettings,
      },
      null,
      2,
    )}\n`,
  );
  return { root, agentDir, workDir, sessionDir };
}

export type PiMode = "json" | "rpc";

export interface SpawnPiOptions {
  /** `json` runs the prompts given as arguments and exits; `rpc` reads commands on stdin. */
  mode?: PiMode;
  /** Arguments after the session dir: more `-e` extensions, `--session`, `--fork`, prompts. */
  args?: string[];
  /** Merged over the hermetic environment (CONDENSE_QUIET=1 unless set here). */
  env?: Record<string, string>;
  /** The extension to load; null runs bare pi. */
  extension?: string | null;
  /** Run pi's entry under this node with --cpu-prof, writing the profiles to this directory. */
  cpuProfDir?: string;
  /** Another checkout's pi (its `.bin/pi` and its CLI entry), e.g. a baseline extension's own pi. */
  pi?: { bin: string; cli: string };
  stdio?: StdioOptions;
}

/** pi's own CLI entry, for running it under node directly (e.g. with --cpu-prof). */
const PI_CLI = join(EXTENSION_DIR, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");

/**
 * Spawns pi in the hermetic home: the fake model, thinking off, nothing of the user's (extensions,
 * skills, prompt templates, context files, themes), one extension, sessions under the home.
 */
export function spawnPi(home: PiHome, options: SpawnPiOptions = {}): ChildProcess {
  const { mode = "json", args = [], env = {}, extension = EXTENSION_DIR, cpuProfDir } = options;
  const pi = options.pi ?? { bin: PI_BIN, cli: PI_CLI };
  const piArgs = [
    "--mode",
    mode,
    "--model",
    "fake/fake-model",
    "--thinking",
    "off",
    "--no-extensions",
    "--no-skills",
    "--no-prompt-templates",
    "--no-context-files",
    "--no-themes",
    ...(extension ? ["-e", extension] : []),
    "--session-dir",
    home.sessionDir,
    ...args,
  ];
  // --cpu-prof is refused in NODE_OPTIONS, so a profiled pi runs its entry under node directly.
  const [bin, argv] = cpuProfDir
    ? [process.execPath, ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`, pi.cli, ...piArgs]]
    : [pi.bin, piArgs];
  return spawn(bin, argv, {
    cwd: home.workDir,
    env: piEnv(home, env),
    stdio: options.stdio ?? ["ignore", "pipe", "pipe"],
  });
}

/** The hermetic environment pi runs in for `home` (and that its extension passes on to the service it starts). */
export function piEnv(home: PiHome, env: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home.root,
    PI_CODING_AGENT_DIR: home.agentDir,
    PI_OFFLINE: "1",
    CONDENSE_QUIET: "1",
    ...env,
  };
}

/** Calls `onEvent` with every JSON line of `stream` as it arrives; lines that are not JSON are skipped. */
export function readJsonLines(stream: Readable, onEvent: (event: Record<string, unknown>) => void): void {
  let buffer = "";
  const parse = (line: string) => {
    if (!line.trim()) return;
    try {
      onEvent(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* not an event line */
    }
  };
  stream.on("data", (d: Buffer) => {
    buffer += d.toString();
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  stream.on("end", () => parse(buffer));
}

export interface PiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Record<string, unknown>[];
  ms: number;
}

/** pi headless (`--mode json`) on `prompts`, to its exit; the events are its stdout's JSON lines. */
export function runPi(
  home: PiHome,
  prompts: string[],
  env: Record<string, string>,
  extraArgs: string[] = [],
  timeoutMs = 240_000,
): Promise<PiRun> {
  const started = Date.now();
  return new Promise((resolveRun, reject) => {
    const child = spawnPi(home, { args: [...extraArgs, ...prompts], env });
    let stdout = "";
    let stderr = "";
    const events: Record<string, unknown>[] = [];
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    readJsonLines(child.stdout!, (e) => events.push(e));
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pi timed out after ${timeoutMs} ms\n${stderr.slice(-3000)}`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr, events, ms: Date.now() - started });
    });
  });
}

export interface RpcPi {
  /** Every event pi wrote so far, in order. */
  events: Record<string, unknown>[];
  stderr: () => string;
  /** The exit code once pi has exited, else null. */
  code: () => number | null;
  /** The text of every notice the extensions showed (extension_ui_request notify), one per line. */
  notices: () => string;
  send: (command: Record<string, unknown>) => void;
  /** Ends stdin, waits up to 15 s for pi to exit, then kills it. */
  close: () => Promise<void>;
}

/** pi in RPC mode (JSONL commands on stdin, events on stdout), for what a headless run cannot send. */
export function startRpcPi(home: PiHome, options: { args?: string[]; env?: Record<string, string> } = {}): RpcPi {
  const child = spawnPi(home, { ...options, mode: "rpc", stdio: ["pipe", "pipe", "pipe"] });
  const events: Record<string, unknown>[] = [];
  readJsonLines(child.stdout!, (e) => events.push(e));
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let code: number | null = null;
  const exited = new Promise<void>((r) =>
    child.on("close", (c) => {
      code = c;
      r();
    }),
  );
  return {
    events,
    stderr: () => stderr,
    code: () => code,
    notices: () =>
      events
        .filter((e) => e.type === "extension_ui_request" && e.method === "notify")
        .map((e) => String(e.message ?? ""))
        .join("\n"),
    send: (command) => child.stdin!.write(`${JSON.stringify(command)}\n`),
    async close() {
      child.stdin!.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** pi's session files under `sessionDir` (not Condense's spool files), sorted. */
export function sessionFilesIn(sessionDir: string): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl") && !e.name.includes("condense-spool")) files.push(join(d, e.name));
    }
  };
  walk(sessionDir);
  return files.sort();
}

/** The one session file pi wrote under the session dir. */
export function sessionFileIn(sessionDir: string): string {
  const files = sessionFilesIn(sessionDir);
  if (files.length !== 1)
    throw new Error(`expected one session file in ${sessionDir}, found ${files.length}: ${files.join(", ")}`);
  return files[0]!;
}
