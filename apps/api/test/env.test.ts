import { describe, expect, it } from "vitest";
import { ApiEnvError, loadApiEnv } from "../src/env.ts";
import { appConfigFromEnv } from "../src/app.ts";

describe("loadApiEnv", () => {
  it("gives embedded defaults for an empty environment", () => {
    const env = loadApiEnv({});
    expect(env).toMatchObject({
      mode: "embedded",
      HOST: "127.0.0.1",
      PORT: 8787,
      DATABASE_URL: "pglite:./.condense/pglite",
      REDIS_URL: "",
      CONDENSE_MAX_REQUEST_BYTES: 8 * 1024 * 1024,
      CONDENSE_MAX_RESULT_BYTES: 2 * 1024 * 1024,
      CONDENSE_MIGRATE: true,
      LOG_LEVEL: "info",
    });
  });

  it("switches to fleet mode when REDIS_URL is set and coerces numbers and booleans", () => {
    const env = loadApiEnv({ REDIS_URL: "redis://127.0.0.1:6379", PORT: "0", CONDENSE_MIGRATE: "0", CONDENSE_RATE_LIMIT_PER_SEC: "0", CONDENSE_MAX_RESULT_BYTES: "1024" });
    expect(env).toMatchObject({ mode: "fleet", PORT: 0, CONDENSE_MIGRATE: false, CONDENSE_RATE_LIMIT_PER_SEC: 0, CONDENSE_MAX_RESULT_BYTES: 1024 });
    expect(appConfigFromEnv(env)).toMatchObject({ rateLimit: { perSecond: 0 }, maxResultBytes: 1024 });
  });

  it("treats empty and blank values as unset", () => {
    expect(loadApiEnv({ PORT: "", REDIS_URL: "  ", LOG_LEVEL: "" })).toMatchObject({ PORT: 8787, mode: "embedded", LOG_LEVEL: "info" });
  });

  it("accepts postgres and pglite database URLs", () => {
    expect(loadApiEnv({ DATABASE_URL: "postgres://u@h:5432/db" }).DATABASE_URL).toBe("postgres://u@h:5432/db");
    expect(loadApiEnv({ DATABASE_URL: "pglite:" }).DATABASE_URL).toBe("pglite:");
  });

  it.each([
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ REDIS_URL: "http://x" }, "REDIS_URL"],
    [{ CONDENSE_ADMIN_KEY: "short" }, "CONDENSE_ADMIN_KEY"],
    [{ CONDENSE_MAX_REQUEST_BYTES: "10" }, "CONDENSE_MAX_REQUEST_BYTES"],
    [{ CONDENSE_MIGRATE: "maybe" }, "CONDENSE_MIGRATE"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ CONDENSE_REDIS_PREFIX: "has space" }, "CONDENSE_REDIS_PREFIX"],
  ])("refuses %o naming %s", (input, field) => {
    let err: unknown;
    try { loadApiEnv(input); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ApiEnvError);
    expect((err as ApiEnvError).issues.map((i) => i.path)).toContain(field);
    expect((err as Error).message).toContain(field);
  });
});
