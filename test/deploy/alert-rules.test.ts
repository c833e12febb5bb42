/**
 * The shipped alert rules (infra/prometheus/alerts.yml) through promtool: they parse, the compose
 * Prometheus config that loads them is valid, and the unit tests in alerts.test.yml pass. Both ways:
 * every alert has a case where it fires and one where it stays quiet, every tested alert exists, and
 * every metric a rule reads is one the code registers. promtool comes with Debian's `prometheus`
 * package (.ci/run installs it); without it this suite skips with a notice, except in CI
 * (REQUIRE_SERVICES=1), where it fails.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { hasBinary } from "../integration/support/throwaway-services.ts";
import { registeredMetricNames, metricNamesIn } from "./support/promql.ts";

const ROOT = join(import.meta.dirname, "../..");
const RULES = join(ROOT, "infra/prometheus/alerts.yml");
const RULE_TESTS = join(ROOT, "infra/prometheus/alerts.test.yml");

const havePromtool = hasBinary("promtool");
if (!havePromtool) {
  if (process.env.REQUIRE_SERVICES === "1")
    throw new Error("promtool is missing: apt-get install -y prometheus (.ci/run does)");
  console.warn("\n!!! promtool not installed: the alert-rule tests are SKIPPED (apt-get install -y prometheus) !!!\n");
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}
interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
}
const rules = (parseYaml(readFileSync(RULES, "utf8")) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const alerts = rules.filter((r) => r.alert);
const tests = (parseYaml(readFileSync(RULE_TESTS, "utf8")) as { tests: RuleTest[] }).tests.flatMap(
  (t) => t.alert_rule_test ?? [],
);

function promtool(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync("promtool", args, { encoding: "utf8", cwd: ROOT });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

describe("alert rules (infra/prometheus/alerts.yml)", () => {
  it("ship the five alerts operators page on, each with a severity and a summary", () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      "CondenseCacheWriteShareRising",
      "CondenseFlushErrorRate",
      "CondenseQueueBacklog",
      "CondenseRenderDiagnosticsRising",
      "CondenseSummarizerFallbackActive",
    ]);
    for (const a of alerts) expect(["info", "warning", "critical"], a.alert).toContain(a.labels?.severity);
  });

  it("read only metrics the API, worker or summarizer register", () => {
    const known = registeredMetricNames();
    for (const r of rules)
      for (const m of metricNamesIn(r.expr)) expect(known, `${r.alert ?? r.record}: ${m}`).toContain(m);
  });

  it("every alert has a firing and a quiet unit test, and every tested alert exists", () => {
    const names = new Set(alerts.map((a) => a.alert!));
    for (const t of tests) expect(names, `alerts.test.yml tests ${t.alertname}`).toContain(t.alertname);
    for (const name of names) {
      const cases = tests.filter((t) => t.alertname === name);
      expect(
        cases.some((c) => c.exp_alerts.length > 0),
        `${name} has a case where it fires`,
      ).toBe(true);
      expect(
        cases.some((c) => c.exp_alerts.length === 0),
        `${name} has a case where it stays quiet`,
      ).toBe(true);
    }
  });

  it.skipIf(!havePromtool)("promtool check rules: they parse", () => {
    const r = promtool("check", "rules", RULES);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it.skipIf(!havePromtool)("promtool check config: the compose Prometheus config loads them", () => {
    const dir = mkdtempSync(join(tmpdir(), "condense-promcfg-"));
    try {
      // The container path of the rule file, pointed at the repository's copy.
      const cfg = parseYaml(readFileSync(join(ROOT, "infra/prometheus/prometheus.yml"), "utf8")) as {
        rule_files: string[];
      };
      cfg.rule_files = cfg.rule_files.map((f) => join(ROOT, "infra/prometheus", f.split("/").at(-1)!));
      writeFileSync(join(dir, "prometheus.yml"), stringifyYaml(cfg));
      const r = promtool("check", "config", join(dir, "prometheus.yml"));
      expect(r.status, r.out).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!havePromtool)("promtool test rules: alerts.test.yml passes", () => {
    const r = promtool("test", "rules", RULE_TESTS);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain("SUCCESS");
  });
});
