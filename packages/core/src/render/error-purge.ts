/**
 * Phase 2, error purge (CAP-RENDER-7). Once a failed call is `cooldownTurns` assistant turns old, its
 * large arguments are dead weight (the model has moved on); they are replaced by a placeholder that
 * keeps their size. The error result itself stays so the model still knows what failed. Keyed by bare
 * id as in the spec; results stubbed by phase 1 carry `isError:false` and are therefore not purged.
 */
import { isObject, type AssistantMessage } from "../messages.ts";
import { purgedArgs } from "../texts.ts";
import { isReadableAssistant, isReadableToolResult } from "./message-shape.ts";
import type { RenderContext } from "./render-context.ts";

const argCharsByBlock = new WeakMap<object, number>();
/** Purged copies per assistant, keyed by which of its call ids were purged (byte- and reference-stable). */
const purgedByAssistant = new WeakMap<object, Map<string, AssistantMessage>>();

/** The arguments object the block actually carries: `arguments`, else the `input`/`args` aliases. */
function argsField(b: Record<string, unknown>): "arguments" | "input" | "args" | undefined {
  if (b.arguments !== undefined) return "arguments";
  if (b.input !== undefined) return "input";
  if (b.args !== undefined) return "args";
  return undefined;
}

function argChars(b: Record<string, unknown>, field: string): number {
  let n = argCharsByBlock.get(b);
  if (n === undefined) {
    try { n = JSON.stringify(b[field])?.length ?? 0; } catch { n = 0; }
    argCharsByBlock.set(b, n);
  }
  return n;
}

export function errorPurge(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  const pe = ctx.settings.purgeErrors;
  if (!pe || pe.enabled === false) return messages;
  const cooldown = typeof pe.cooldownTurns === "number" ? pe.cooldownTurns : 2;
  const minChars = typeof pe.minArgChars === "number" ? pe.minArgChars : 500;
  let assistants = 0;
  let erroredAt: Map<string, number> | undefined;
  for (const m of messages) {
    if (isReadableAssistant(m)) assistants++;
    else if (isReadableToolResult(m) && m.isError === true) (erroredAt ??= new Map()).set(m.toolCallId, assistants);
  }
  if (!erroredAt) return messages;
  const current = assistants;
  let out: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isReadableAssistant(m)) continue;
    let purgeIds: string[] | undefined;
    for (const b of m.content) {
      if (!isObject(b) || b.type !== "toolCall" || typeof b.id !== "string") continue;
      const at = erroredAt.get(b.id);
      if (at === undefined || current - at < cooldown) continue;
      const field = argsField(b);
      if (field === undefined || argChars(b, field) < minChars) continue;
      (purgeIds ??= []).push(b.id);
    }
    if (!purgeIds) continue;
    out ??= messages.slice();
    out[i] = purgedCopy(m, purgeIds, minChars);
    ctx.stats.purged += purgeIds.length;
  }
  return out ?? messages;
}

function purgedCopy(m: AssistantMessage, ids: readonly string[], minChars: number): AssistantMessage {
  const sig = `${minChars}\u0000${ids.join("\u0000")}`;
  let byIds = purgedByAssistant.get(m);
  const hit = byIds?.get(sig);
  if (hit) return hit;
  const content = m.content.map((b) => {
    if (!isObject(b) || b.type !== "toolCall" || typeof b.id !== "string" || !ids.includes(b.id)) return b;
    const field = argsField(b)!;
    const size = argChars(b, field);
    if (size < minChars) return b;
    return { ...b, [field]: purgedArgs(size) };
  });
  const copy = { ...m, content } as AssistantMessage;
  if (!byIds) { byIds = new Map(); purgedByAssistant.set(m, byIds); }
  byIds.set(sig, copy);
  return copy;
}
