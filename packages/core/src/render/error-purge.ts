/**
 * Phase 2, error purge (CAP-RENDER-7). Once a failed call is `cooldownTurns` assistant turns old, its
 * large arguments are dead weight (the model has moved on); they are replaced by a placeholder that
 * keeps their size. The error result itself stays so the model still knows what failed. Results
 * stubbed by phase 1 carry `isError:false` and are therefore not purged.
 *
 * Deliberate difference from pi-condense (CAP-LIMIT-14, "bare-id keyed"): the purge is keyed by
 * occurrence. An error result purges the call in the assistant that opened its turn (same pairing rule
 * as the orphan sweep), never an unrelated call that reuses the provider id. This also makes the
 * purge idempotent: on rendered output no pairing appears that was not there before and ages only
 * shrink, so a second render never purges anything the first did not. (Per-batch summary messages
 * are transparent here, unlike in the sweep, because phase 3 may remove them.)
 */
import { isObject, type AssistantMessage, type ToolResultMessage } from "../messages.ts";
import { purgedArgs } from "../texts.ts";
import { markProduced } from "./message-size.ts";
import { purgeCandidateBuffer } from "./stub-replace.ts";
import type { RenderContext } from "./render-context.ts";
import { answeredEarlier, callsId } from "./turn-pairing.ts";

/**
 * The last block measured and its size: a candidate's block is measured to decide, then again when the
 * copy is built, within one render. (A WeakMap keyed by block would never hit across renders of a
 * host's fresh clones, and each insert is an ephemeron the GC must trace.)
 */
let lastBlock: object | null = null;
let lastField = "";
let lastChars = 0;
/** Purged copies per assistant, keyed by which of its call ids were purged (byte- and reference-stable). */
const purgedByAssistant = new WeakMap<object, Map<string, AssistantMessage>>();

/** The arguments object the block actually carries: `arguments`, else the `input`/`args` aliases. */
function argsField(b: Record<string, unknown>): "arguments" | "input" | "args" | undefined {
  if (b.arguments !== undefined) return "arguments";
  if (b.input !== undefined) return "input";
  if (b.args !== undefined) return "args";
  return undefined;
}

/** Already the placeholder: purging it again would only rewrite the recorded size. */
function isPurged(b: Record<string, unknown>, field: string): boolean {
  const a = b[field];
  return isObject(a) && typeof a._purged === "string" && Object.keys(a).length === 1;
}

function argChars(b: Record<string, unknown>, field: string): number {
  if (b === lastBlock && field === lastField) return lastChars;
  let n: number;
  try { n = JSON.stringify(b[field])?.length ?? 0; } catch { n = 0; }
  lastBlock = b;
  lastField = field;
  lastChars = n;
  return n;
}

export function errorPurge(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  const pe = ctx.settings.purgeErrors;
  if (!pe || pe.enabled === false) return messages;
  // The first pass (stub-replace.ts) noted every readable failed result with an opener, and counted
  // the turns; a render without failures does no work here.
  const count = ctx.purgeCandidates;
  if (count === 0) return messages;
  const c = purgeCandidateBuffer();
  lastBlock = null; // sizes are remembered within this render only
  const cooldown = typeof pe.cooldownTurns === "number" ? pe.cooldownTurns : 2;
  const minChars = typeof pe.minArgChars === "number" ? pe.minArgChars : 500;
  const current = ctx.assistantTurns ?? 0;
  let opener = -1;
  let ids: string[] | undefined; // purgeable failed calls of the current opener
  let out: unknown[] | undefined;
  // Candidates come in input order, so those of one turn are adjacent: a turn's ids are applied
  // together when the next candidate's opener differs, as the per-turn scan did.
  for (let k = 0; k < count; k += 3) {
    const i = c[k]!;
    const o = c[k + 1]!;
    if (o !== opener) {
      if (ids) { out = applyPurge(messages, out, opener, ids, minChars, ctx); ids = undefined; }
      opener = o;
    }
    if (current - c[k + 2]! < cooldown) continue;
    // a result stubbed by phase 1 says isError:false (same id and position, so pairing is unchanged)
    const m = messages[i] as ToolResultMessage;
    if (m.isError !== true) continue;
    const a = messages[o] as AssistantMessage;
    if (!callsId(a, m.toolCallId) || answeredEarlier(messages, o, i, m.toolCallId)) continue;
    if (hasPurgeableCall(a, m.toolCallId, minChars)) (ids ??= []).push(m.toolCallId);
  }
  if (ids) out = applyPurge(messages, out, opener, ids, minChars, ctx);
  lastBlock = null;
  return out ?? messages;
}

function applyPurge(messages: readonly unknown[], out: unknown[] | undefined, opener: number, ids: readonly string[], minChars: number, ctx: RenderContext): unknown[] {
  const a = messages[opener] as AssistantMessage;
  const copy = purgedCopy(a, ids, minChars);
  const next = out ?? messages.slice();
  next[opener] = copy;
  ctx.stats.purged += countPurged(a, copy);
  return next;
}

function hasPurgeableCall(a: AssistantMessage, id: string, minChars: number): boolean {
  for (const b of a.content) if (isObject(b) && b.type === "toolCall" && b.id === id && purgeable(b, [id], minChars)) return true;
  return false;
}

function purgeable(b: unknown, ids: readonly string[], minChars: number): b is Record<string, unknown> {
  if (!isObject(b) || b.type !== "toolCall" || typeof b.id !== "string" || !ids.includes(b.id)) return false;
  const field = argsField(b);
  return field !== undefined && !isPurged(b, field) && argChars(b, field) >= minChars;
}

/** The assistant with the given calls' arguments purged; the same object when none qualifies. */
function purgedCopy(m: AssistantMessage, ids: readonly string[], minChars: number): AssistantMessage {
  if (!m.content.some((b) => purgeable(b, ids, minChars))) return m;
  const sig = `${minChars}\u0000${ids.join("\u0000")}`;
  let byIds = purgedByAssistant.get(m);
  const hit = byIds?.get(sig);
  if (hit) return hit;
  const content = m.content.map((b) => {
    if (!purgeable(b, ids, minChars)) return b;
    const field = argsField(b)!;
    return { ...b, [field]: purgedArgs(argChars(b, field)) };
  });
  const copy = markProduced({ ...m, content } as AssistantMessage);
  if (!byIds) { byIds = new Map(); purgedByAssistant.set(m, byIds); }
  byIds.set(sig, copy);
  return copy;
}

/** Number of call blocks purged between an input and output assistant (for stats). */
function countPurged(before: AssistantMessage, after: AssistantMessage): number {
  let n = 0;
  for (let i = 0; i < after.content.length; i++) if (after.content[i] !== before.content[i]) n++;
  return n;
}
