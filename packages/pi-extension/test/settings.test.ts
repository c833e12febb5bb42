/** Settings storage in pi's settings file and the /condense setting commands (CAP-CFG-1/3, CAP-UX-4/5). */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, emptyStats, normalizeSettings } from "@condense/core";
import { applySettingCommand, parseFraction } from "../src/settings-commands.ts";
import { loadSettings, saveSettings, SETTINGS_KEY } from "../src/settings-store.ts";
import { statusReport } from "../src/status-report.ts";
import { connectionFromEnv } from "../src/connection-config.ts";

describe("settings store", () => {
  it("keeps pi's own keys and unknown condense keys, and normalizes invalid values", () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-settings-"));
    const path = join(dir, "settings.json");
    writeFileSync(
      path,
      JSON.stringify({
        retry: { enabled: false },
        [SETTINGS_KEY]: { autoBudgetThreshold: 80, recoveryGraceTurns: 2.7, thinkingStrip: { keep: 1 } },
      }),
    );
    const s = loadSettings(path);
    expect(s.autoBudgetThreshold).toBeNull();
    expect(s.recoveryGraceTurns).toBe(2);
    expect(s.thinkingStrip).toEqual({ keep: 1 });
    saveSettings({ ...s, enabled: false }, path);
    const file = JSON.parse(readFileSync(path, "utf8"));
    expect(file.retry).toEqual({ enabled: false });
    expect(file[SETTINGS_KEY].thinkingStrip).toEqual({ keep: 1 });
    expect(file[SETTINGS_KEY].enabled).toBe(false);
    expect(readFileSync(path, "utf8").endsWith("}\n")).toBe(true);
  });

  it("a missing or broken file gives the defaults", () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-settings-"));
    expect(loadSettings(join(dir, "none.json"))).toEqual(normalizeSettings({}));
    writeFileSync(join(dir, "bad.json"), "{ not json");
    expect(loadSettings(join(dir, "bad.json")).enabled).toBe(DEFAULT_SETTINGS.enabled);
  });
});

describe("/condense setting commands", () => {
  const base = normalizeSettings({});
  it("on/off, model with thinking, thresholds, protection lists, dedup", () => {
    expect(applySettingCommand(base, "off", "")).toMatchObject({ ok: true, settings: { enabled: false } });
    expect(applySettingCommand(base, "model", "anthropic/claude-haiku:low")).toMatchObject({
      ok: true,
      settings: { summarizerModel: "anthropic/claude-haiku", summarizerThinking: "low" },
    });
    expect(applySettingCommand(base, "model", "haiku:turbo").ok).toBe(false);
    expect(applySettingCommand(base, "thresholds", "80% 0.1")).toMatchObject({
      ok: true,
      settings: { autoBudgetThreshold: 0.8, budgetTurnDelta: 0.1 },
    });
    expect(applySettingCommand(base, "thresholds", "off off")).toMatchObject({
      ok: true,
      settings: { autoBudgetThreshold: null, budgetTurnDelta: null },
    });
    expect(applySettingCommand(base, "thresholds", "2").ok).toBe(true);
    expect(applySettingCommand(base, "thresholds", "abc").ok).toBe(false);
    expect(applySettingCommand(base, "protected-tools", "todowrite, read")).toMatchObject({
      ok: true,
      settings: { protectedTools: ["todowrite", "read"] },
    });
    expect(applySettingCommand(base, "protected-paths", "none")).toMatchObject({
      ok: true,
      settings: { protectedPaths: [] },
    });
    expect(applySettingCommand(base, "dedup", "tenant")).toMatchObject({
      ok: true,
      settings: { dedupScope: "tenant" },
    });
    expect(applySettingCommand(base, "dedup", "off")).toMatchObject({
      ok: true,
      settings: { dedupByContentHash: false },
    });
    expect(parseFraction("150%")).toBeUndefined();
  });

  it("status shows the --- context --- block and the rearm flag", () => {
    const text = statusReport({
      settings: base,
      connection: "embedded",
      stats: emptyStats(),
      metrics: { openCycleThinkingTokens: 12, largestChainSharePct: 40, frontierGapTokens: 3000 },
      rearmed: true,
      pendingTurns: 1,
      stateVersion: 3,
      outbox: 0,
      degraded: false,
    });
    expect(text).toContain("--- summarizer ---\n  (no summarizer calls yet)");
    expect(text).toContain(
      "--- context ---\n  thinking: 12 tokens (open segment)\n  chain share: 40%\n  frontier gap: 3000 tokens\n  rearmed: yes",
    );
  });

  it("CONDENSE_URL selects a fleet, otherwise the local service with its data under the agent dir", () => {
    expect(connectionFromEnv({ CONDENSE_URL: "https://c.example", CONDENSE_API_KEY: "ck_1" })).toEqual({
      mode: "fleet",
      url: "https://c.example",
      apiKey: "ck_1",
    });
    expect(connectionFromEnv({ PI_CODING_AGENT_DIR: "/tmp/agent" })).toEqual({
      mode: "local",
      dataDir: "/tmp/agent/condense",
    });
    expect(connectionFromEnv({ PI_CODING_AGENT_DIR: "/tmp/agent", CONDENSE_DATA_DIR: "/tmp/elsewhere" })).toEqual({
      mode: "local",
      dataDir: "/tmp/elsewhere",
    });
  });
});

describe("/condense setting commands pi-condense's /pruner had (CAP-UX-4), checked before they are stored", () => {
  const base = normalizeSettings({});
  it("prune-on, batching, min-batch-chars, recovery-grace, thinking, timeouts, fallback-model, set", () => {
    expect(applySettingCommand(base, "prune-on", "on-demand")).toMatchObject({
      ok: true,
      settings: { pruneOn: "on-demand" },
    });
    expect(applySettingCommand(base, "batching", "agent-message")).toMatchObject({
      ok: true,
      settings: { batchingMode: "agent-message" },
    });
    expect(applySettingCommand(base, "min-batch-chars", "0")).toMatchObject({
      ok: true,
      settings: { minBatchChars: 0 },
    });
    expect(applySettingCommand(base, "recovery-grace", "5")).toMatchObject({
      ok: true,
      settings: { recoveryGraceTurns: 5 },
    });
    expect(applySettingCommand(base, "thinking", "high")).toMatchObject({
      ok: true,
      settings: { summarizerThinking: "high" },
    });
    expect(applySettingCommand(base, "timeouts", "30s 2m")).toMatchObject({
      ok: true,
      settings: { summarizerIdleTimeoutMs: 30_000, summarizerMaxTimeoutMs: 120_000 },
    });
    expect(applySettingCommand(base, "timeouts", "off")).toMatchObject({
      ok: true,
      settings: { summarizerIdleTimeoutMs: 0 },
    });
    expect(applySettingCommand(base, "fallback-model", "openai/gpt-4o-mini")).toMatchObject({
      ok: true,
      settings: { summarizerFallbackModel: "openai/gpt-4o-mini" },
    });
    expect(applySettingCommand({ ...base, summarizerFallbackModel: "a/b" }, "fallback-model", "none")).toMatchObject({
      ok: true,
      settings: { summarizerFallbackModel: null },
    });
    const set = applySettingCommand(base, "set", "chainCompression.rollingWindow 1");
    expect(set).toMatchObject({ ok: true, settings: { chainCompression: { rollingWindow: 1, enabled: true } } });
    expect(applySettingCommand(base, "set", 'protectedTools ["read"]')).toMatchObject({
      ok: true,
      settings: { protectedTools: ["read"] },
    });
  });

  it("a mistyped value or key is refused with what is valid, and nothing is stored", () => {
    const cases: [string, string, RegExp][] = [
      ["prune-on", "every-turn", /pruneOn must be one of agent-message, on-demand, got "every-turn"/],
      ["batching", "turns", /batchingMode must be one of turn, agent-message/],
      ["min-batch-chars", "-3", /non-negative integer/],
      ["recovery-grace", "lots", /non-negative integer/],
      ["thinking", "max", /summarizerThinking must be one of default, off, minimal/],
      ["timeouts", "soon", /durations/],
      ["fallback-model", "gpt4", /provider\/id or null/],
      ["set", "minBachChars 500", /unknown setting "minBachChars" \(did you mean "minBatchChars"\?\); valid: /],
      ["prune", "x", /unknown setting command "prune" \(did you mean "prune-on"\?\)/],
    ];
    for (const [sub, args, re] of cases) {
      const r = applySettingCommand(base, sub, args);
      expect(r.ok, `${sub} ${args}`).toBe(false);
      expect(r.message, `${sub} ${args}`).toMatch(re);
    }
  });

  it("a bare command shows the current value", () => {
    expect(applySettingCommand(base, "min-batch-chars", "")).toMatchObject({
      ok: false,
      message: "condense: min-batch-chars is 1000 (a non-negative integer; 0 disables)",
    });
    expect(applySettingCommand(base, "timeouts", "").message).toContain("idle timeout 20s, max timeout 180s");
  });
});
