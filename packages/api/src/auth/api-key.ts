/**
 * Bearer-token parsing and secret comparison. Keys themselves are minted and hashed (sha256) by
 * @condense/db (`createApiKey`, `hashApiKey`): the plaintext is shown once, at creation.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { API_KEY_PREFIX } from "@condense/db";

/** What a syntactically valid tenant key looks like; anything else is refused before any lookup. */
export const API_KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{20,200}$`);

/** `Authorization: Bearer <token>` -> token, or undefined for any other shape. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m?.[1];
}

/** Constant-time comparison of two secrets (hash both so the lengths never leak through timing). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}
