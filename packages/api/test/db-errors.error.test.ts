/**
 * The database's typed failures reach a client in the shared error vocabulary: a NotFoundError (a
 * session or flush request gone while a route worked on it) answers 404 `not_found`, a ConflictError
 * 409 `conflict`, through the app's one error path.
 */
import { Hono } from "hono";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "@condense/db";
import type { AppEnv } from "../src/app-env.ts";
import { onError } from "../src/errors/handler.ts";

function appThrowing(err: Error) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("requestId", "req-1");
    c.set("log", pino({ level: "silent" }));
    await next();
  });
  app.get("/x", () => {
    throw err;
  });
  app.onError(onError);
  return app;
}

describe("db errors map to the API's error codes", () => {
  it("NotFoundError answers 404 not_found with its message", async () => {
    const res = await appThrowing(new NotFoundError("session", "acme/s1")).request("/x");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: "not_found", message: "session acme/s1 not found", requestId: "req-1" },
    });
  });

  it("ConflictError answers 409 conflict", async () => {
    const res = await appThrowing(new ConflictError("flush request f1 already exists for another session")).request(
      "/x",
    );
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("conflict");
  });

  it("other errors stay 500 internal_error", async () => {
    const res = await appThrowing(new Error("boom")).request("/x");
    expect(res.status).toBe(500);
  });
});
