/**
 * Phase 2, error purge (CAP-RENDER-7). A failed call's large arguments are dead weight once the model
 * has moved on; they are replaced by a placeholder that records their size. The error result itself
 * stays, so the model still knows what failed. Which failures are old enough is decided when the
 * state is applied (render-policy.ts), so a render never purges a call that the previous render of
 * the same state kept. Results stubbed by phase 1 say `isError:false` and are not purged.
 *
 * Deliberate difference from pi-condense (CAP-LIMIT-14, "bare-id keyed"): the purge is keyed by
 * occurrence. An error result purges the call in the assistant that opened its turn (the pairing rule
 * of turn-pairing.ts), never an unrelated call that reuses the provider id. Per-batch summary
 * messages do not end a turn here, unlike in the sweep, because phase 3 may remove them.
 */
import { isObject, type AssistantMessage, type ToolResultMessage } from "../messages.ts";
import { purgedArgs } from "../texts.ts";
import { Kind, UNREADABLE, type Rendering } from "./message-shape.ts";
import { producedSize } from "./message-size.ts";
import { writable, type RenderContext } from "./render-context.ts";
import { memoCopy } from "./render-memo.ts";
import { resultKey } from "./render-policy.ts";
import { answeredEarlier, callsId } from "./turn-pairing.ts";

export function errorPurge(r: Rendering, ctx: RenderContext): Rendering {
  const pe = ctx.settings.purgeErrors;
  if (!pe || pe.enabled === false || ctx.policy.purgeKeys.size === 0) return r;
  const minChars = typeof pe.minArgChars === "number" ? pe.minArgChars : 500;
  const { messages, kinds } = r;
  /** per opener position: the failed call ids of its turn whose arguments go */
  const purge = new Map<number, string[]>();
  let opener = -1;
  for (let i = 0; i < messages.length; i++) {
    const kind = kinds[i]!;
    if (kind === Kind.ASSISTANT) {
      opener = i;
      continue;
    }
    if (kind === Kind.RESULT) {
      const m = messages[i] as ToolResultMessage;
      if (opener < 0 || m.isError !== true || !ctx.policy.purgeKeys.has(resultKey(m))) continue;
      const a = messages[opener] as AssistantMessage;
      if (!callsId(a, m.toolCallId) || answeredEarlier(messages, opener, i, m.toolCallId)) continue;
      const ids = purge.get(opener);
      if (ids) ids.push(m.toolCallId);
      else purge.set(opener, [m.toolCallId]);
      continue;
    }
    if ((kind & ~UNREADABLE) === Kind.SUMMARY) continue;
    opener = -1;
  }
  let out: unknown[] | undefined;
  for (const [at, ids] of purge) {
    const a = messages[at] as AssistantMessage;
    const copy = memoCopy(ctx.memo, a, `purge\u0000${minChars}\u0000${ids.join("\u0000")}`, () =>
      purgedCopy(a, ids, minChars),
    );
    if (copy === a) continue;
    producedSize(ctx.memo.sizes, copy);
    (out ??= writable(ctx, messages))[at] = copy;
    for (let k = 0; k < a.content.length; k++) if (copy.content[k] !== a.content[k]) ctx.stats.purged++;
  }
  // A purged copy replaces its assistant in place: the kinds and timestamps still hold.
  return out ? { ...r, messages: out } : r;
}

/** The arguments field the block actually carries: `arguments`, else the `input`/`args` aliases. */
function argsField(b: Record<string, unknown>): "arguments" | "input" | "args" | undefined {
  if (b.arguments !== undefined) return "arguments";
  if (b.input !== undefined) return "input";
  if (b.args !== undefined) return "args";
  return undefined;
}

/** The placeholder already: purging it again would only rewrite the recorded size. */
function isPurged(args: unknown): boolean {
  return isObject(args) && typeof args._purged === "string" && Object.keys(args).length === 1;
}

function argChars(args: unknown): number {
  try {
    return JSON.stringify(args)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The assistant with the given calls' large arguments purged; the same object when none qualifies. */
function purgedCopy(a: AssistantMessage, ids: readonly string[], minChars: number): AssistantMessage {
  let content: unknown[] | undefined;
  for (let k = 0; k < a.content.length; k++) {
    const b = a.content[k];
    if (!isObject(b) || b.type !== "toolCall" || typeof b.id !== "string" || !ids.includes(b.id)) continue;
    const field = argsField(b);
    if (field === undefined || isPurged(b[field])) continue;
    const size = argChars(b[field]);
    if (size < minChars) continue;
    (content ??= a.content.slice())[k] = { ...b, [field]: purgedArgs(size) };
  }
  return content ? ({ ...a, content } as AssistantMessage) : a;
}
