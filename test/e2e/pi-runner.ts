/**
 * Runs the real pi binary headless (`--mode json`) in a hermetic home: its own HOME and
 * PI_CODING_AGENT_DIR in a temp dir, PI_OFFLINE=1, retries and pi's own compaction off, only the
 * Condense extension loaded (`-e packages/pi-extension`), and the fake LLM registered as a custom
 * provider in models.json.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
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

/** `piSettings` is merged over the defaults below (e.g. `{ compaction: { enabled: true, ... } }`). */
export function preparePiHome(
  root: string,
  fakeBaseUrl: string,
  condenseSettings: Record<string, unknown>,
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
        condense: condenseSettings,
        ...piSettings,
      },
      null,
      2,
    )}\n`,
  );
  return { root, agentDir, workDir, sessionDir };
}

export interface PiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Record<string, unknown>[];
  ms: number;
}

export function runPi(
  home: PiHome,
  prompts: string[],
  env: Record<string, string>,
  extraArgs: string[] = [],
  timeoutMs = 240_000,
): Promise<PiRun> {
  const args = [
    "--mode",
    "json",
    "--model",
    "fake/fake-model",
    "--thinking",
    "off",
    "--no-extensions",
    "--no-skills",
    "--no-prompt-templates",
    "--no-context-files",
    "--no-themes",
    "-e",
    EXTENSION_DIR,
    "--session-dir",
    home.sessionDir,
    ...extraArgs,
    ...prompts,
  ];
  const started = Date.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(PI_BIN, args, {
      cwd: home.workDir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home.root,
        PI_CODING_AGENT_DIR: home.agentDir,
        PI_OFFLINE: "1",
        CONDENSE_QUIET: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
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
      const events: Record<string, unknown>[] = [];
      for (const line of stdout.split("\n")) {
        if (!line.trim()) continue;
        try {
          events.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          /* not an event line */
        }
      }
      resolveRun({ code, stdout, stderr, events, ms: Date.now() - started });
    });
  });
}

/** The one session file pi wrote under the session dir. */
export function sessionFileIn(sessionDir: string): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".jsonl") && !e.name.includes("condense-spool")) files.push(join(d, e.name));
    }
  };
  walk(sessionDir);
  if (files.length !== 1)
    throw new Error(`expected one session file in ${sessionDir}, found ${files.length}: ${files.join(", ")}`);
  return files[0]!;
}
