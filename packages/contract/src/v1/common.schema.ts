/**
 * Schema pieces shared by the routes: identifiers, text that Postgres can store, and the session path
 * parameter. Strings are refused (400) when they hold a lone UTF-16 surrogate or a NUL character:
 * Postgres text and jsonb cannot store either, so accepting them would turn bad input into a 5xx.
 */
import { z } from "@hono/zod-openapi";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function textProblem(s: string): string | undefined {
  if (s.includes("\u0000")) return "contains a NUL character, which cannot be stored";
  if (LONE_SURROGATE.test(s)) return "contains a lone UTF-16 surrogate (invalid Unicode)";
  return undefined;
}

/** A string that can be stored as Postgres text. */
export const StorableText = z.string().superRefine((s, ctx) => {
  const p = textProblem(s);
  if (p) ctx.addIssue({ code: "custom", message: p });
});

/** Any JSON value whose strings (keys included) can be stored in jsonb; reports the deepest bad path. */
export const StorableRecord = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const walk = (v: unknown, path: (string | number)[], depth: number): boolean => {
    if (depth > 64) {
      ctx.addIssue({ code: "custom", message: "nested deeper than 64 levels", path });
      return false;
    }
    if (typeof v === "string") {
      const p = textProblem(v);
      if (p) {
        ctx.addIssue({ code: "custom", message: p, path });
        return false;
      }
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!walk(v[i], [...path, i], depth + 1)) return false;
    } else if (v && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        const p = textProblem(k);
        if (p) {
          ctx.addIssue({ code: "custom", message: `key ${p}`, path });
          return false;
        }
        if (!walk(child, [...path, k], depth + 1)) return false;
      }
    }
    return true;
  };
  walk(value, [], 0);
});

/** Client-chosen identifiers (session ids, capture ids, tool-call ids): printable, bounded. */
export const Identifier = (max = 200) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7E]+$/, "must be 1+ printable ASCII characters without spaces");

export const SessionId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, "must match [A-Za-z0-9._:-]{1,128}")
  .openapi({
    param: { name: "sessionId", in: "path" },
    description: "The client-chosen session id (letters, digits, `.`, `_`, `:` or `-`; up to 128).",
    example: "0b6f1c2e-5d4a-4f0e-9b1a-2c3d4e5f6a7b",
  });

export const SessionParams = z.object({ sessionId: SessionId });

/** Epoch milliseconds (or any non-negative integer timestamp the client uses consistently). */
export const Timestamp = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
