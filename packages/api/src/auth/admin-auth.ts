/** Admin authentication: one key from the environment; admin routes are closed while it is unset. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors/codes.ts";
import { bearerToken, secretsEqual } from "./api-key.ts";

export function adminAuth(adminKey: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!adminKey || !token || !secretsEqual(token, adminKey)) {
      throw new ApiError(
        "unauthorized",
        adminKey ? "a valid admin key is required" : "admin routes are disabled: CONDENSE_ADMIN_KEY is not set",
        {
          headers: { "WWW-Authenticate": 'Bearer realm="condense-admin"' },
        },
      );
    }
    await next();
  };
}
