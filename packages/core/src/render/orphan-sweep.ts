/**
 * Phase 4, orphan sweep (CAP-RENDER-18..20, 2.9.1 barrier). Providers reject a tool result whose call
 * is not in the assistant turn that opened it, permanently; the host repairs orphan calls but never
 * orphan results. So one forward pass keeps a tool result only when the nearest preceding assistant,
 * with nothing but tool results in between, called its id and no earlier result in that turn answered
 * it. Any other message (user, custom, branchSummary, compactionSummary, bashExecution, unknown roles,
 * unreadable entries) is a barrier: deliberately no allowlist, since the host turns these into user
 * text that would split the call from its result.
 *
 * Pairing wins over "leave malformed input untouched": every message with role `toolResult` is judged,
 * whatever its content (a string, null, missing) and whether it has an id at all. An opened one stays
 * as it is; an unopened one is removed, because a request holding it is one the provider refuses.
 */
import { orphanSweepDiagnostic } from "../diagnostics.ts";
import type { AssistantMessage } from "../messages.ts";
import { Kind, UNREADABLE, type Rendering } from "./message-shape.ts";
import { report, type RenderContext } from "./render-context.ts";
import { answeredEarlier, callsId } from "./turn-pairing.ts";

/** How a result without an id is named in the sweep diagnostic. */
const NO_ID = "(no id)";

export function orphanSweep(r: Rendering, ctx: RenderContext): Rendering {
  const { messages, kinds } = r;
  let opener = -1;
  let swept: number[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const kind = kinds[i]!;
    if (kind === Kind.ASSISTANT) {
      opener = i;
      continue;
    }
    if ((kind & ~UNREADABLE) === Kind.RESULT) {
      const id = (messages[i] as { toolCallId?: unknown }).toolCallId;
      const a = opener >= 0 ? (messages[opener] as AssistantMessage) : undefined;
      if (typeof id === "string" && a && callsId(a, id) && !answeredEarlier(messages, opener, i, id)) continue;
      (swept ??= []).push(i);
      continue;
    }
    opener = -1;
  }
  if (!swept) return r;
  const ids = swept
    .map((i) => {
      const id = (messages[i] as { toolCallId?: unknown }).toolCallId;
      return typeof id === "string" ? id : NO_ID;
    })
    .sort();
  report(ctx, orphanSweepDiagnostic(ids));
  ctx.stats.swept += swept.length;
  return without(r, swept);
}

/** The rendering without the elements at `gone` (ascending positions), allocated at its final length. */
function without({ messages, kinds, timestamps }: Rendering, gone: readonly number[]): Rendering {
  const n = messages.length - gone.length;
  const out: unknown[] = new Array(n);
  const outKinds = new Uint8Array(n);
  const outTimestamps = new Float64Array(n);
  let j = 0;
  let g = 0;
  for (let i = 0; i < messages.length; i++) {
    if (g < gone.length && gone[g] === i) {
      g++;
      continue;
    }
    out[j] = messages[i];
    outKinds[j] = kinds[i]!;
    outTimestamps[j++] = timestamps[i]!;
  }
  return { messages: out, kinds: outKinds, timestamps: outTimestamps };
}
