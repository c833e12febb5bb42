/** Applies the tenant's token bucket after authentication; refusals answer 429 with Retry-After. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors/codes.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export function tenantRateLimit(limiter: RateLimiter | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const tenant = c.get("tenant");
    if (!limiter || !tenant) return next();
    let d;
    try {
      d = await limiter.take(`tenant:${tenant.tenantId}`);
    } catch (err) {
      // A limiter outage (Redis down) must not take the API down with it: fail open, loudly.
      c.get("log").warn({ err }, "rate limiter unavailable; request allowed");
      return next();
    }
    c.header("RateLimit-Remaining", String(d.remaining));
    if (!d.allowed) {
      const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
      throw new ApiError("rate_limited", `rate limit exceeded for this tenant; retry in ${seconds}s`, {
        headers: { "Retry-After": String(seconds) },
      });
    }
    await next();
  };
}
