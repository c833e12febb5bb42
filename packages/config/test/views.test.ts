import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  apiConfig,
  cliConfig,
  clientConfig,
  dataRoot,
  serviceConfig,
  serviceWorkerConfig,
  VARIABLES,
  workerConfig,
} from "../src/index.ts";

describe("the data directory", () => {
  it("is CONDENSE_DATA_DIR (resolved, ~ expanded) or <pi agent dir>/condense", () => {
    expect(dataRoot({ CONDENSE_DATA_DIR: "/srv/condense/" })).toBe("/srv/condense");
    expect(dataRoot({ CONDENSE_DATA_DIR: "rel" })).toBe(join(process.cwd(), "rel"));
    expect(dataRoot({ PI_CODING_AGENT_DIR: "/a/agent" })).toBe("/a/agent/condense");
    expect(dataRoot({})).toMatch(/\.pi\/agent\/condense$/);
  });

  it("holds the PGlite database of every process view", () => {
    const env = { CONDENSE_DATA_DIR: "/d" };
    expect(apiConfig(env).databaseUrl).toBe("pglite:/d/pglite");
    expect(workerConfig(env).databaseUrl).toBe("pglite:/d/pglite");
    expect(serviceConfig(env).dataDir).toBe("/d");
    expect(cliConfig(env).dataDir).toBe("/d");
    expect(clientConfig(env).connection).toEqual({ mode: "local", dataDir: "/d" });
  });

  it("is overridden by an explicit DATABASE_URL", () => {
    expect(apiConfig({ DATABASE_URL: "postgres://u@h:5432/db" }).databaseUrl).toBe("postgres://u@h:5432/db");
    expect(apiConfig({ DATABASE_URL: "pglite:" }).databaseUrl).toBe("pglite:");
  });
});

describe("the views", () => {
  it("api: defaults", () => {
    expect(apiConfig({ CONDENSE_DATA_DIR: "/d" })).toEqual({
      mode: "embedded",
      host: "127.0.0.1",
      port: 8787,
      dataDir: "/d",
      databaseUrl: "pglite:/d/pglite",
      redisUrl: "",
      redisPrefix: "condense",
      adminKey: "",
      maxRequestBytes: 8 * 1024 * 1024,
      maxResultBytes: 2 * 1024 * 1024,
      rateLimitPerSec: 100,
      rateLimitBurst: 400,
      shutdownGraceMs: 10_000,
      sseHeartbeatMs: 15_000,
      ssePollMs: 1_000,
      fleetWindowMinutes: 15,
      migrate: true,
      logLevel: "info",
    });
    expect(apiConfig({ REDIS_URL: "redis://h:6379" }).mode).toBe("fleet");
  });

  it("worker: summarizer model variables win over the JSON config; models list is split", () => {
    const c = workerConfig({
      CONDENSE_SUMMARIZER_CONFIG: '{"summarizerModel":"a/b","timeoutMs":5}',
      CONDENSE_SUMMARIZER_MODEL: "c/d",
      CONDENSE_SUMMARIZER_MODELS: " x/y, ,z/w ",
      CONDENSE_RETENTION_INTERVAL_MINUTES: "2",
    });
    expect(c.summarizer).toEqual({ summarizerModel: "c/d", timeoutMs: 5 });
    expect(c.sessionModels).toEqual(["x/y", "z/w"]);
    expect(c.retention.intervalMs).toBe(120_000);
    expect(c.workerId).toMatch(/:\d+$/);
  });

  it("service worker: its own defaults, never on Redis, always migrating", () => {
    const c = serviceWorkerConfig({ REDIS_URL: "redis://h", CONDENSE_MIGRATE: "false" }, "pglite:/d/pglite");
    expect(c).toMatchObject({
      mode: "embedded",
      concurrency: 2,
      shutdownGraceMs: 5_000,
      logLevel: "silent",
      migrate: true,
    });
    const set = serviceWorkerConfig(
      { CONDENSE_WORKER_CONCURRENCY: "4", CONDENSE_LOG_LEVEL: "debug" },
      "pglite:/d/pglite",
    );
    expect(set).toMatchObject({ concurrency: 4, logLevel: "debug" });
  });

  it("service: idle time and log level", () => {
    expect(serviceConfig({ CONDENSE_SERVICE_IDLE_MS: "0" })).toMatchObject({ idleMs: 0, logLevel: "info" });
    expect(serviceConfig({})).toMatchObject({ idleMs: 600_000, pgliteTier: "baseline" });
    expect(serviceConfig({ CONDENSE_SERVICE_PGLITE_TIER: "optimizing" }).pgliteTier).toBe("optimizing");
    expect(() => serviceConfig({ CONDENSE_SERVICE_PGLITE_TIER: "turbo" })).toThrow(/CONDENSE_SERVICE_PGLITE_TIER/);
    expect(() => serviceConfig({ CONDENSE_SERVICE_IDLE_MS: "-5" })).toThrow(/CONDENSE_SERVICE_IDLE_MS="-5"/);
  });

  it("client: fleet when CONDENSE_URL is set, the extension's knobs", () => {
    const c = clientConfig({ CONDENSE_URL: " https://c.example ", CONDENSE_API_KEY: "k", CONDENSE_DEBUG: "1" });
    expect(c.connection).toEqual({ mode: "fleet", url: "https://c.example", apiKey: "k" });
    expect(c).toMatchObject({
      debug: true,
      quiet: false,
      syncTimeoutMs: 8_000,
      shutdownDrainMs: 3_000,
      shutdownDrainMaxMs: 20_000,
    });
  });

  it("every variable is CONDENSE_-prefixed unless it is a standard name, and has a reader and a meaning", () => {
    for (const [name, v] of Object.entries(VARIABLES)) {
      expect(name.startsWith("CONDENSE_") || v.standard === true, name).toBe(true);
      expect(v.readers.length, name).toBeGreaterThan(0);
      expect(v.description.length, name).toBeGreaterThan(10);
      for (const old of v.deprecatedNames ?? []) expect(old.startsWith("CONDENSE_"), old).toBe(false);
    }
  });
});
