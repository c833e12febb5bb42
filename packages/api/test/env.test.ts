import { describe, expect, it } from "vitest";
import { ApiEnvError, loadApiEnv } from "../src/env.ts";
import { appConfigFromEnv } from "../src/app.ts";

describe("loadApiEnv", () => {
  it("gives embedded defaults for an empty environment, on the data directory's PGlite", () => {
    const env = loadApiEnv({ CONDENSE_DATA_DIR: "/data" });
    expect(env).toMatchObject({
      mode: "embedded",
      host: "127.0.0.1",
      port: 8787,
      databaseUrl: "pglite:/data/pglite",
      redisUrl: "",
      maxRequestBytes: 8 * 1024 * 1024,
      maxResultBytes: 2 * 1024 * 1024,
      migrate: true,
      logLevel: "info",
    });
  });

  it("switches to fleet mode when REDIS_URL is set and coerces numbers and booleans", () => {
    const env = loadApiEnv({
      REDIS_URL: "redis://127.0.0.1:6379",
      CONDENSE_PORT: "0",
      CONDENSE_MIGRATE: "0",
      CONDENSE_RATE_LIMIT_PER_SEC: "0",
      CONDENSE_MAX_RESULT_BYTES: "1024",
    });
    expect(env).toMatchObject({ mode: "fleet", port: 0, migrate: false, rateLimitPerSec: 0, maxResultBytes: 1024 });
    expect(appConfigFromEnv(env)).toMatchObject({ rateLimit: { perSecond: 0 }, maxResultBytes: 1024 });
  });

  it.each([
    [{ CONDENSE_PORT: "abc" }, "CONDENSE_PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ REDIS_URL: "http://x" }, "REDIS_URL"],
    [{ CONDENSE_ADMIN_KEY: "short" }, "CONDENSE_ADMIN_KEY"],
    [{ CONDENSE_MAX_REQUEST_BYTES: "10" }, "CONDENSE_MAX_REQUEST_BYTES"],
    [{ CONDENSE_MIGRATE: "maybe" }, "CONDENSE_MIGRATE"],
    [{ CONDENSE_LOG_LEVEL: "loud" }, "CONDENSE_LOG_LEVEL"],
    [{ CONDENSE_REDIS_PREFIX: "has space" }, "CONDENSE_REDIS_PREFIX"],
  ])("refuses %o naming %s", (input, variable) => {
    let err: unknown;
    try {
      loadApiEnv(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiEnvError);
    expect((err as ApiEnvError).issues.map((i) => i.variable)).toContain(variable);
    expect((err as Error).message).toContain(variable);
  });
});
