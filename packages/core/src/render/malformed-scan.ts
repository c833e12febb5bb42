/**
 * Reports unreadable messages (see message-shape.ts) as `malformed-message` diagnostics. The dedup
 * key hashes the message's content, not its position, so the same bad entry is reported once however
 * the array around it shifts.
 */
import { shortHash, type Diagnostic } from "../diagnostics.ts";
import { malformedReason, type MalformedReason } from "./message-shape.ts";
import { report, type RenderContext } from "./render-context.ts";

const diagnosticByObject = new WeakMap<object, Diagnostic>();

function describe(m: unknown): string {
  if (typeof m === "object" && m !== null) {
    try { return JSON.stringify(m)?.slice(0, 4096) ?? "undefined"; } catch { return `unserializable ${Array.isArray(m) ? "array" : "object"}`; }
  }
  try { return `${typeof m}:${String(m)}`; } catch { return typeof m; }
}

function diagnosticFor(m: unknown, reason: string): Diagnostic {
  const cacheable = typeof m === "object" && m !== null;
  const hit = cacheable ? diagnosticByObject.get(m) : undefined;
  if (hit) return hit;
  const role = cacheable && typeof (m as { role?: unknown }).role === "string" ? (m as { role: string }).role : "-";
  const d: Diagnostic = { kind: "malformed-message", dedupKey: shortHash(`${reason}\u0000${describe(m)}`), detail: `reason=${reason} role=${role} type=${Array.isArray(m) ? "array" : m === null ? "null" : typeof m}` };
  if (cacheable) diagnosticByObject.set(m, d);
  return d;
}

export function reportMalformed(messages: readonly unknown[], ctx: RenderContext): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const reason = malformedReason(m);
    if (reason !== null) reportMalformedOne(ctx, m, reason);
  }
}

/** One unreadable message (the render's first pass classifies messages itself, see stub-replace.ts). */
export function reportMalformedOne(ctx: RenderContext, m: unknown, reason: MalformedReason): void {
  ctx.stats.malformed++;
  report(ctx, diagnosticFor(m, reason));
}
