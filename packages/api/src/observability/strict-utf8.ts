/**
 * JSON bodies must be UTF-8 (RFC 8259). A lenient decoder would turn invalid bytes into U+FFFD and
 * silently store something the client never sent; this middleware checks the bytes strictly first
 * (Hono caches the buffer, so the validators read the same bytes again), and invalid ones answer 400.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors/codes.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

export const strictUtf8Json: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (!c.req.raw.body || !/^application\/json\b/i.test(type)) return next();
  const bytes = await c.req.arrayBuffer();
  try {
    decoder.decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "the request body is not valid UTF-8");
  }
  await next();
};
