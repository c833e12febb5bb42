/**
 * Condense as an installable pi package. `pnpm pack` runs the package's prepack bundle (Condense's
 * private workspace packages inside dist/, pi's own packages as peers, third-party packages as
 * dependencies); the tarball is then installed with plain `npm install` into a clean directory of a
 * clean HOME and agent dir, registered with `pi install <dir>`, and pi runs with nothing but that
 * install (no `-e`, no workspace on the module path) against the fake provider: the extension loads
 * from dist/, starts its local service from the bundle, and condenses. Also `pi install
 * ./packages/pi-extension` from the repository. Needs the npm registry for the package's dependencies.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm, type Scenario } from "@condense/test-support/fake-llm";
import { EXTENSION_DIR, PI_BIN, preparePiHome, type PiHome } from "./pi-runner.ts";
import { pairingProblems, stubRefs } from "./request-checks.ts";

const seq = (a: number, b: number) => ({ name: "bash", args: { command: `seq ${a} ${b}` } });
const SCENARIOS: Record<string, Scenario> = {
  PK: (step) => (step < 3 ? { calls: [seq(1000 + step * 500, 1300 + step * 500)] } : { text: "PK finished." }),
  // Slow commands, so PK's summaries (made off the agent's turn) arrive and are applied during PL.
  PL: (step) =>
    step < 4
      ? { calls: [{ name: "bash", args: { command: `sleep 1.5; seq ${9000 + step * 500} ${9300 + step * 500}` } }] }
      : { text: "PL finished." },
};

/**
 * What npm needs from the machine to reach its registry, whatever HOME and prefix the test gives it:
 * the machine's global npmrc (npm looks for it under the prefix, which the test moves, so a registry
 * behind a TLS-inspecting proxy would fail every fetch with SELF_SIGNED_CERT_IN_CHAIN and npm retry
 * until the timeout), and the CA, proxy and registry variables of this process.
 */
function machineNpmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  try {
    const globalconfig = execFileSync("npm", ["config", "get", "globalconfig"], { encoding: "utf8" }).trim();
    if (globalconfig && existsSync(globalconfig)) env.npm_config_globalconfig = globalconfig;
  } catch {
    /* no npm config: npm's defaults */
  }
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy)$/i.test(k)) env[k] = v;
    if (/^npm_config_(registry|cafile|ca|strict_ssl|proxy|https_proxy|noproxy)$/i.test(k)) env[k] = v;
  }
  return env;
}
const MACHINE_NPM_ENV = machineNpmEnv();

/** Runs pi to its end, asynchronously: the fake LLM answers from this process's event loop. */
function runPi(
  home: PiHome,
  llm: FakeLlm,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(PI_BIN, args, { cwd: home.workDir, env: piEnv(home, llm), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** The tail of the local service's log, for a failure message. */
function serviceLog(home: PiHome): string {
  try {
    return `local service log:\n${readFileSync(join(home.agentDir, "condense", "service.log"), "utf8").slice(-4000)}`;
  } catch (err) {
    return `no local service log: ${(err as Error).message}`;
  }
}

function piEnv(home: PiHome, llm: FakeLlm): NodeJS.ProcessEnv {
  return {
    ...MACHINE_NPM_ENV,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home.root,
    PI_CODING_AGENT_DIR: home.agentDir,
    PI_OFFLINE: "1",
    CONDENSE_QUIET: "1",
    npm_config_prefix: join(home.root, "npm-global"),
    // The machine's npm cache (downloads only; nothing of the clean HOME's configuration comes from it).
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm"),
    CONDENSE_SUMMARIZER_CONFIG: JSON.stringify({
      summarizerModel: "fake/fake-model",
      retries: 0,
      customModels: [
        { provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" },
      ],
    }),
  };
}

describe("Condense as a pi package: packed, installed with npm into a clean home, run by pi", () => {
  let llm: FakeLlm;
  let home: PiHome;
  let tarball: string;
  let installed: string;
  let run: { status: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 100 });
    const root = mkdtempSync(join(tmpdir(), "condense-package-"));
    home = preparePiHome(root, llm.baseUrl, { enabled: true }, 128_000);
    const packDir = join(root, "pack");
    mkdirSync(packDir);
    execFileSync("npx", ["-y", "pnpm@10.34.9", "pack", "--pack-destination", packDir], {
      cwd: EXTENSION_DIR,
      stdio: "pipe",
      timeout: 300_000,
    });
    tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith(".tgz"))!);
    const target = join(home.agentDir, "condense-package");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "package.json"), JSON.stringify({ name: "condense-install", private: true }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--fetch-retries=2", tarball], {
      cwd: target,
      env: piEnv(home, llm),
      stdio: "pipe",
      timeout: 600_000,
    });
    installed = join(target, "node_modules/@condense/pi-extension");
    execFileSync(PI_BIN, ["install", installed], {
      cwd: home.workDir,
      env: piEnv(home, llm),
      stdio: "pipe",
      timeout: 120_000,
    });
    const baseArgs = [
      "--mode",
      "json",
      "--model",
      "fake/fake-model",
      "--thinking",
      "off",
      "--no-skills",
      "--no-prompt-templates",
      "--no-context-files",
      "--no-themes",
      "--session-dir",
      home.sessionDir,
    ];
    run = await runPi(home, llm, [...baseArgs, "SCENARIO PK: three ranges", "SCENARIO PL: more ranges"]);
    // On a cold data directory the first pi process starts the local service (PGlite's first open and
    // the migrations); on a loaded host that can outlast PL, so PK's summaries have not reached a render
    // yet. A user keeps working: up to four more PL turns in the same session, until a PL request holds
    // a stub. Condensing is never allowed to make pi fail, so every run must exit 0.
    const condensed = () =>
      llm.requests.some((r) => r.kind === "agent" && r.scenario === "PL" && stubRefs(r.body.messages).length > 0);
    for (let extra = 0; extra < 4 && run.status === 0 && !condensed(); extra++)
      run = await runPi(home, llm, [...baseArgs, "-c", "SCENARIO PL: more ranges"]);
  }, 900_000);

  afterAll(async () => {
    // The bundled local service outlives pi by design; stop the one this test started.
    try {
      const owner = JSON.parse(readFileSync(join(home.agentDir, "condense", "owner.lock"), "utf8")) as { pid: number };
      process.kill(owner.pid, "SIGTERM");
    } catch {
      /* not running */
    }
    await llm?.close();
    if (home) rmSync(home.root, { recursive: true, force: true });
  });

  it("the packed tarball holds the bundle and the migrations, no source, and a manifest npm can install", () => {
    const list = execFileSync("tar", ["tzf", tarball]).toString().split("\n");
    expect(list).toContain("package/dist/index.js");
    expect(list).toContain("package/dist/service.js");
    expect(list.some((f) => f.startsWith("package/migrations/") && f.endsWith(".sql"))).toBe(true);
    expect(list.some((f) => f.startsWith("package/src/"))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<
      string,
      Record<string, string>
    >;
    expect(manifest.peerDependencies).toEqual({ "@mariozechner/pi-coding-agent": "*", "@mariozechner/pi-ai": "*" });
    expect(JSON.stringify(manifest.dependencies)).not.toMatch(/workspace:|catalog:|@condense\//);
    // The repository keeps no bundle behind after packing (postpack), so only the source loads there.
    expect(readdirSync(EXTENSION_DIR)).not.toContain("dist");
  });

  it("pi install registered it, and pi ran with it alone: the extension loaded from the install and condensed", () => {
    const settings = JSON.parse(readFileSync(join(home.agentDir, "settings.json"), "utf8")) as { packages?: unknown[] };
    expect(JSON.stringify(settings.packages)).toContain("condense-package");
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    const agent = llm.requests.filter((r) => r.kind === "agent");
    expect(agent.length).toBeGreaterThan(3);
    for (const r of agent) expect(pairingProblems(r.body.messages)).toEqual([]);
    // The query tool is registered by the installed extension, and PK's outputs were summarized and stubbed.
    expect(JSON.stringify(agent[0]!.body.tools)).toContain("context_tree_query");
    expect(
      llm.requests.some((r) => r.kind === "summarizer"),
      serviceLog(home),
    ).toBe(true);
    expect(
      agent.filter((r) => r.scenario === "PL").some((r) => stubRefs(r.body.messages).length > 0),
      serviceLog(home),
    ).toBe(true);
    // Its local service's data is under the clean agent dir.
    expect(readdirSync(join(home.agentDir, "condense"))).toContain("pglite");
  });

  it("pi install ./packages/pi-extension (a local path) registers the repository package", () => {
    const other = preparePiHome(mkdtempSync(join(tmpdir(), "condense-package-local-")), llm.baseUrl, {}, 128_000);
    try {
      execFileSync(PI_BIN, ["install", "./packages/pi-extension"], {
        cwd: join(EXTENSION_DIR, "../.."),
        env: piEnv(other, llm),
        stdio: "pipe",
        timeout: 120_000,
      });
      const listed = execFileSync(PI_BIN, ["list"], {
        cwd: other.workDir,
        env: piEnv(other, llm),
        timeout: 60_000,
      }).toString();
      expect(listed).toContain("packages/pi-extension");
    } finally {
      rmSync(other.root, { recursive: true, force: true });
    }
  });
});
