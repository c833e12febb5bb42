/**
 * Reports unreadable messages (see message-shape.ts) as `malformed-message` diagnostics. The dedup
 * key hashes the message's content, not its position, so the same bad entry is reported once however
 * the array around it shifts.
 */
import { shortHash, type Diagnostic } from "../diagnostics.ts";
import { malformedReason, UNREADABLE, type Rendering } from "./message-shape.ts";
import { report, type RenderContext } from "./render-context.ts";

function describe(m: unknown): string {
  if (typeof m === "object" && m !== null) {
    try {
      return JSON.stringify(m)?.slice(0, 4096) ?? "undefined";
    } catch {
      return `unserializable ${Array.isArray(m) ? "array" : "object"}`;
    }
  }
  try {
    return `${typeof m}:${String(m)}`;
  } catch {
    return typeof m;
  }
}

function diagnosticFor(m: unknown, reason: string): Diagnostic {
  const role =
    typeof m === "object" && m !== null && typeof (m as { role?: unknown }).role === "string"
      ? (m as { role: string }).role
      : "-";
  return {
    kind: "malformed-message",
    dedupKey: shortHash(`${reason}\u0000${describe(m)}`),
    detail: `reason=${reason} role=${role} type=${Array.isArray(m) ? "array" : m === null ? "null" : typeof m}`,
  };
}

export function reportMalformed({ messages, kinds }: Rendering, ctx: RenderContext): void {
  for (let i = 0; i < messages.length; i++) {
    if (!(kinds[i]! & UNREADABLE)) continue;
    const m = messages[i];
    const reason = malformedReason(m);
    if (reason === null) continue;
    ctx.stats.malformed++;
    report(ctx, diagnosticFor(m, reason));
  }
}
