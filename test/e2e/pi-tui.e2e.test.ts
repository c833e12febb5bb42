/**
 * pi's interactive TUI with Condense, as a user types it: the real pi binary in a tmux pane (160x50),
 * the extension loaded with `-e`, a fake OpenAI-compatible provider. Every `/condense` command is typed
 * with send-keys and its answer read back with capture-pane; setting commands are then checked in pi's
 * settings file and in `/condense settings` (what the running client holds); the footer is read after
 * an agent turn whose outputs were condensed; mistyped commands and settings get an error naming the
 * valid ones. Skips with a notice when tmux is not installed (.ci/run installs it).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDataDir, localServicePaths } from "@condense/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm, type FakeLlm, type Scenario } from "@condense/test-support/fake-llm";
import { EXTENSION_DIR, PI_BIN, preparePiHome, type PiHome } from "./pi-runner.ts";
import { pairingProblems } from "./request-checks.ts";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
if (!hasTmux) console.warn("!!! pi TUI e2e SKIPPED: tmux is not installed (apt-get install -y tmux) !!!");

const seq = (a: number, b: number) => ({ name: "bash", args: { command: `seq ${a} ${b}` } });
const SCENARIOS: Record<string, Scenario> = {
  TA: (step) =>
    step === 0 ? { calls: [seq(1000, 1300)] } : step === 1 ? { calls: [seq(1400, 1700)] } : { text: "TA finished." },
  TB: (step) => (step === 0 ? { calls: [seq(2000, 2300)] } : { text: "TB finished." }),
  TC: () => ({ text: "TC finished." }),
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasTmux)("pi's TUI under tmux: every /condense command and the footer", () => {
  let llm: FakeLlm;
  let home: PiHome;
  const pane = `condense-tui-${process.pid}`;

  const screen = () => execFileSync("tmux", ["capture-pane", "-p", "-J", "-S", "-3000", "-t", pane]).toString();
  const count = (re: RegExp) => (screen().match(new RegExp(re.source, "g")) ?? []).length;
  /**
   * Wait until `re` matches more often than `before` times on the pane (scrollback included): pi's TUI
   * redraws in place, so "new output" is a match that was not there before. Bounded; not a timing check.
   */
  async function waitFor(re: RegExp, before: number, what: string, timeoutMs = 60_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = screen();
      if ((s.match(new RegExp(re.source, "g")) ?? []).length > before) return s;
      if (Date.now() > end) throw new Error(`TUI: no ${what} (${re}) on the screen:\n${s.slice(-4000)}`);
      await sleep(250);
    }
  }
  /** Type a line and press Enter; a second Enter if an autocomplete list took the first one. */
  async function type(line: string, expect: RegExp, what = line): Promise<string> {
    const before = count(expect);
    execFileSync("tmux", ["send-keys", "-t", pane, "-l", line]);
    await sleep(300);
    execFileSync("tmux", ["send-keys", "-t", pane, "Enter"]);
    try {
      return await waitFor(expect, before, what, 8_000);
    } catch {
      execFileSync("tmux", ["send-keys", "-t", pane, "Enter"]);
      return waitFor(expect, before, what);
    }
  }
  /** The tail of the local service's log (the data directory this pi derives), for a failure's message. */
  const serviceLogTail = () => {
    const { logFile } = localServicePaths(defaultDataDir({ PI_CODING_AGENT_DIR: home.agentDir }));
    return existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-6000) : `(no ${logFile})`;
  };
  const stored = () =>
    (JSON.parse(readFileSync(join(home.agentDir, "settings.json"), "utf8")) as { condense: Record<string, unknown> })
      .condense;

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS, summarizerDelayMs: 100 });
    home = preparePiHome(mkdtempSync(join(tmpdir(), "condense-tui-")), llm.baseUrl, { enabled: true }, 128_000);
    const env = [
      `HOME=${home.root}`,
      `PI_CODING_AGENT_DIR=${home.agentDir}`,
      "PI_OFFLINE=1",
      "TERM=xterm-256color",
      `PATH=${process.env.PATH ?? "/usr/bin:/bin"}`,
      `CONDENSE_SUMMARIZER_CONFIG=${JSON.stringify({ summarizerModel: "fake/fake-model", retries: 0, customModels: [{ provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" }] })}`,
    ];
    const args = [
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
    ];
    execFileSync("tmux", [
      "new-session",
      "-d",
      "-s",
      pane,
      "-x",
      "160",
      "-y",
      "50",
      "-c",
      home.workDir,
      "env",
      ...env,
      PI_BIN,
      ...args,
    ]);
    await waitFor(/pi v0\.73/, 0, "pi banner");
    // The footer line appears once Condense's session_start has run.
    await waitFor(/│ condense: ON/, 0, "Condense footer");
  }, 120_000);

  afterAll(async () => {
    spawnSync("tmux", ["kill-session", "-t", pane]);
    await llm?.close();
    if (home) rmSync(home.root, { recursive: true, force: true });
  });

  it("the information commands answer in the TUI", async () => {
    await type("/condense help", /\/condense set <key> <value>/);
    await type("/condense status", /Condense status[\s\S]*--- context ---/);
    await type("/condense stats", /condense: no summarizer calls yet/);
    await type("/condense settings", /Condense settings[\s\S]*minBatchChars: 1000/);
  }, 120_000);

  it("an agent turn, then its outputs condensed: the footer shows the reclaim, /condense now and compact run", async () => {
    await type("SCENARIO TA: inspect two ranges", /TA finished\./, "TA reply");
    await type("SCENARIO TB: one more range", /TB finished\./, "TB reply");
    // The summaries of TA's outputs are applied at the first model call after they arrive: the footer then
    // shows tokens before -> after. On a loaded host the service (started by this pi) may still be summarizing
    // at TB's calls; a user's next message then shows it, so one more short turn is sent per try. Bounded.
    const reclaim = /│ condense: ON · [\d.,k]+->[\d.,k]+ \(-\d+%\)/;
    for (let attempt = 1; ; attempt++) {
      try {
        await waitFor(reclaim, 0, "footer reclaim segment", attempt < 5 ? 10_000 : 30_000);
        break;
      } catch (e) {
        if (attempt >= 5)
          throw new Error(`${(e as Error).message}\n--- the local service's log ---\n${serviceLogTail()}`);
        await type(`SCENARIO TC: a short reply (${attempt})`, /TC finished\./, "TC reply");
      }
    }
    await type("/condense stats", /condense: (\d+ summarizer call\(s\)|no summarizer calls yet)/);
    await type("/condense now", /condense: (condensing \d+ batch\(es\) in the background|nothing pending)/);
    await type("/condense compact", /condense: compacting every closed chain in the background/);
    for (const r of llm.requests.filter((x) => x.kind === "agent"))
      expect(pairingProblems(r.body.messages)).toEqual([]);
  }, 180_000);

  it("every setting command pi-condense's /pruner had is saved and applied to the running client", async () => {
    const cases: [string, RegExp, string, unknown][] = [
      ["/condense prune-on on-demand", /condense: condensing on demand/, "pruneOn", "on-demand"],
      ["/condense batching agent-message", /condense: batching agent-message/, "batchingMode", "agent-message"],
      ["/condense min-batch-chars 500", /condense: min-batch-chars 500/, "minBatchChars", 500],
      ["/condense recovery-grace 2", /condense: recovery-grace 2/, "recoveryGraceTurns", 2],
      ["/condense thinking low", /condense: summarizer thinking low/, "summarizerThinking", "low"],
      ["/condense timeouts 30s 2m", /condense: idle timeout 30s, max timeout 120s/, "summarizerMaxTimeoutMs", 120_000],
      [
        "/condense model fake/fake-model",
        /condense: summarizer model fake\/fake-model/,
        "summarizerModel",
        "fake/fake-model",
      ],
      [
        "/condense fallback-model fake/other-model",
        /condense: fallback model fake\/other-model/,
        "summarizerFallbackModel",
        "fake/other-model",
      ],
      [
        "/condense protected-tools read, grep",
        /condense: protected tools: read, grep/,
        "protectedTools",
        ["read", "grep"],
      ],
      [
        "/condense protected-paths **/*.env",
        /condense: protected paths: \*\*\/\*\.env/,
        "protectedPaths",
        ["**/*.env"],
      ],
      ["/condense dedup off", /condense: dedup off/, "dedupByContentHash", false],
      ["/condense thresholds 80% 10%", /condense: budget 80%, turn delta 10%/, "autoBudgetThreshold", 0.8],
      ["/condense set spillThreshold 40000", /condense: spillThreshold = 40000/, "spillThreshold", 40_000],
    ];
    for (const [line, answer, key, value] of cases) {
      await type(line, answer);
      expect(stored()[key], line).toEqual(value);
    }
    // Applied, not only stored: the client's own settings (what render, triggers and flushes read).
    const shown = await type("/condense settings", /Condense settings[\s\S]*spillThreshold: 40000/);
    for (const [, , key, value] of cases) expect(shown, key).toContain(`${key}: ${JSON.stringify(value)}`);
    await type(
      "/condense status",
      /trigger: on demand \(\/condense now\)[\s\S]*min batch chars: 500 · recovery grace: 2 turns/,
    );
    const offBefore = count(/│ condense: OFF/);
    await type("/condense off", /condense: OFF/);
    await waitFor(/│ condense: OFF/, offBefore, "footer OFF");
    expect(stored().enabled).toBe(false);
    await type("/condense on", /condense: ON/);
  }, 240_000);

  it("a mistyped command or setting is an error that names the valid ones", async () => {
    await type(
      "/condense setings",
      /unknown command "setings" \(did you mean "settings"\?\); valid: status, stats, settings, now, compact, help, on, off, model/,
    );
    await type(
      "/condense set minBachChars 5",
      /unknown setting "minBachChars" \(did you mean "minBatchChars"\?\); valid: enabled, /,
    );
    await type("/condense prune-on sometimes", /pruneOn must be one of agent-message, on-demand, got "sometimes"/);
    await type("/condense min-batch-chars many", /min-batch-chars must be a non-negative integer/);
    expect(stored().minBatchChars).toBe(500);
  }, 120_000);
});
