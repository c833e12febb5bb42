/**
 * Captures must be storable as Postgres text/jsonb, which cannot hold NUL characters or lone UTF-16
 * surrogates (the API refuses them with 400). Real tool output does contain them (a `cat` of a
 * binary file), so the client replaces each with U+FFFD before sending instead of losing the whole
 * capture. Everything else is passed through untouched; clean input keeps its object identity.
 */
import type { CapturedBatch, CapturedToolCall } from "./capture-types.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what Postgres text cannot store
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what Postgres text cannot store
const HAS_UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function storableText(s: string): string {
  return HAS_UNSTORABLE.test(s) ? s.replace(UNSTORABLE, "\uFFFD") : s;
}

function storableValue(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return storableText(v);
  if (depth > 64 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let changed = false;
    const out = v.map((x) => {
      const y = storableValue(x, depth + 1);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : v;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const key = storableText(k);
    const y = storableValue(x, depth + 1);
    if (key !== k || y !== x) changed = true;
    out[key] = y;
  }
  return changed ? out : v;
}

function storableCall(c: CapturedToolCall): CapturedToolCall {
  const resultText = storableText(c.resultText);
  const toolName = storableText(c.toolName);
  const toolCallId = storableText(c.toolCallId);
  const args = storableValue(c.args) as Record<string, unknown>;
  if (resultText === c.resultText && toolName === c.toolName && toolCallId === c.toolCallId && args === c.args)
    return c;
  return { ...c, resultText, toolName, toolCallId, args };
}

export function storableBatch(b: CapturedBatch): CapturedBatch {
  const toolCalls = b.toolCalls.map(storableCall);
  const assistantText = storableText(b.assistantText);
  const same = assistantText === b.assistantText && toolCalls.every((c, i) => c === b.toolCalls[i]);
  return same ? b : { ...b, assistantText, toolCalls };
}
