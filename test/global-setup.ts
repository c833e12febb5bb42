/**
 * Resolves the services the integration suites use, in this order: env URLs (DATABASE_URL /
 * REDIS_URL, or TEST_DATABASE_URL / TEST_REDIS_URL), then testcontainers where a Docker engine
 * exists, then PGlite for the database and no Redis. With REQUIRE_SERVICES=1 (CI) a missing real
 * Postgres or Redis fails the run instead of letting suites skip.
 */
import type { TestProject } from "vitest/node";
import type {} from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    servicesSource: string;
  }
}

export default async function setup(project: TestProject) {
  let databaseUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "";
  let redisUrl = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "";
  let source = databaseUrl || redisUrl ? "env" : "";
  const teardowns: (() => Promise<unknown>)[] = [];

  if (!databaseUrl || !redisUrl) {
    try {
      const tc = await import("testcontainers");
      await tc.getContainerRuntimeClient();
      if (!databaseUrl) {
        const pg = await new tc.GenericContainer("postgres:16-alpine")
          .withEnvironment({ POSTGRES_PASSWORD: "postgres" })
          .withExposedPorts(5432)
          .withWaitStrategy(tc.Wait.forLogMessage(/ready to accept connections/, 2))
          .start();
        teardowns.push(() => pg.stop());
        databaseUrl = `postgres://postgres:postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`;
      }
      if (!redisUrl) {
        const rd = await new tc.GenericContainer("redis:7-alpine").withExposedPorts(6379).start();
        teardowns.push(() => rd.stop());
        redisUrl = `redis://${rd.getHost()}:${rd.getMappedPort(6379)}`;
      }
      source = source ? `${source}+testcontainers` : "testcontainers";
    } catch {
      // No container runtime: fall through to PGlite / no Redis.
    }
  }
  if (!databaseUrl) {
    databaseUrl = "pglite:";
    source = source || "pglite";
  }

  if (process.env.REQUIRE_SERVICES === "1") {
    if (!databaseUrl.startsWith("postgres"))
      throw new Error(
        "REQUIRE_SERVICES=1 but no Postgres: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)",
      );
    if (!redisUrl) throw new Error("REQUIRE_SERVICES=1 but no Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379)");
  }
  if (!redisUrl) {
    console.warn("\n!!! NO REDIS: suites that need Redis/BullMQ will SKIP. Set REDIS_URL to run them. !!!\n");
  }
  project.provide("databaseUrl", databaseUrl);
  project.provide("redisUrl", redisUrl);
  project.provide("servicesSource", source);
  return async () => {
    for (const t of teardowns) await t();
  };
}
