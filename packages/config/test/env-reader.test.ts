import { describe, expect, it } from "vitest";
import { apiConfig, ConfigError, deprecationWarning, workerConfig } from "../src/index.ts";

function issuesOf(fn: () => unknown): ConfigError["issues"] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error("expected a ConfigError");
}

describe("the parser", () => {
  it("names the variable, the bad value and what is expected", () => {
    const issues = issuesOf(() => apiConfig({ CONDENSE_PORT: "eighty", HOME: "/h" }));
    expect(issues).toEqual([{ variable: "CONDENSE_PORT", value: "eighty", expected: "an integer from 0 to 65535" }]);
    expect(() => apiConfig({ CONDENSE_PORT: "70000" })).toThrow(
      'invalid API environment: CONDENSE_PORT="70000": expected an integer from 0 to 65535',
    );
  });

  it("reports every bad variable at once", () => {
    const issues = issuesOf(() =>
      apiConfig({
        CONDENSE_LOG_LEVEL: "loud",
        CONDENSE_MIGRATE: "maybe",
        CONDENSE_ADMIN_KEY: "short",
        REDIS_URL: "http://x",
      }),
    );
    expect(issues.map((i) => i.variable).sort()).toEqual([
      "CONDENSE_ADMIN_KEY",
      "CONDENSE_LOG_LEVEL",
      "CONDENSE_MIGRATE",
      "REDIS_URL",
    ]);
    expect(issues.find((i) => i.variable === "CONDENSE_LOG_LEVEL")?.expected).toBe(
      "one of fatal, error, warn, info, debug, trace, silent",
    );
  });

  it("treats empty and blank values as unset and trims the rest", () => {
    const c = apiConfig({ CONDENSE_PORT: "", REDIS_URL: "  ", CONDENSE_LOG_LEVEL: "", CONDENSE_HOST: " 0.0.0.0 " });
    expect(c).toMatchObject({ port: 8787, redisUrl: "", mode: "embedded", logLevel: "info", host: "0.0.0.0" });
  });

  it("rejects integers below their minimum and non-integers", () => {
    expect(issuesOf(() => workerConfig({ CONDENSE_WORKER_CONCURRENCY: "0" }))[0]).toEqual({
      variable: "CONDENSE_WORKER_CONCURRENCY",
      value: "0",
      expected: "an integer ≥ 1",
    });
    expect(issuesOf(() => workerConfig({ CONDENSE_RETENTION_CAPTURES_DAYS: "1.5" }))[0]?.variable).toBe(
      "CONDENSE_RETENTION_CAPTURES_DAYS",
    );
  });

  it("refuses a summarizer config that is not a JSON object", () => {
    expect(issuesOf(() => workerConfig({ CONDENSE_SUMMARIZER_CONFIG: "{not json" }))[0]).toEqual({
      variable: "CONDENSE_SUMMARIZER_CONFIG",
      value: "{not json",
      expected: "a JSON object",
    });
  });

  it("checks rules across variables: REDIS_URL needs a postgres DATABASE_URL", () => {
    expect(() => workerConfig({ REDIS_URL: "redis://h:6379" })).toThrow(/REDIS_URL: set only with a postgres:\/\//);
    expect(workerConfig({ REDIS_URL: "redis://h:6379", DATABASE_URL: "postgres://u@h/db" }).mode).toBe("fleet");
    expect(workerConfig({ DATABASE_URL: "postgres://u@h/db" }).mode).toBe("postgres-in-process");
  });
});

describe("deprecated names", () => {
  it("still work, with one warning line naming the new variable", () => {
    const lines: string[] = [];
    const c = apiConfig({ PORT: "9000", HOST: "0.0.0.0", LOG_LEVEL: "warn" }, { warn: (l) => lines.push(l) });
    expect(c).toMatchObject({ port: 9000, host: "0.0.0.0", logLevel: "warn" });
    expect(lines.sort()).toEqual([
      deprecationWarning("HOST", "CONDENSE_HOST"),
      deprecationWarning("LOG_LEVEL", "CONDENSE_LOG_LEVEL"),
      deprecationWarning("PORT", "CONDENSE_PORT"),
    ]);
    expect(lines[0]).toBe("condense: HOST is deprecated, use CONDENSE_HOST (the old name still works for now)");
    expect(lines.every((l) => !l.includes("\n"))).toBe(true);
  });

  it("lose to the new name, which then warns nothing", () => {
    const lines: string[] = [];
    const c = workerConfig(
      { WORKER_CONCURRENCY: "3", CONDENSE_WORKER_CONCURRENCY: "5" },
      { warn: (l) => lines.push(l) },
    );
    expect(c.concurrency).toBe(5);
    expect(lines).toEqual([]);
  });

  it("name themselves in errors", () => {
    const issues = issuesOf(() => workerConfig({ WORKER_LOCK_MS: "10" }, { warn: () => {} }));
    expect(issues).toEqual([{ variable: "WORKER_LOCK_MS", value: "10", expected: "an integer ≥ 500" }]);
  });

  it("cover every WORKER_ variable the worker read", () => {
    const lines: string[] = [];
    const c = workerConfig(
      {
        WORKER_CONCURRENCY: "3",
        WORKER_ID: "w-1",
        WORKER_BATCH_CONCURRENCY: "2",
        WORKER_SHUTDOWN_GRACE_MS: "100",
        WORKER_LOCK_MS: "1000",
        WORKER_STALLED_INTERVAL_MS: "500",
      },
      { warn: (l) => lines.push(l) },
    );
    expect(c).toMatchObject({
      concurrency: 3,
      workerId: "w-1",
      batchConcurrency: 2,
      shutdownGraceMs: 100,
      lockDurationMs: 1000,
      stalledIntervalMs: 500,
    });
    expect(lines).toHaveLength(6);
  });
});
