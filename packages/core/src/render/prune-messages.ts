/**
 * pruneMessages: the render transform run before every LLM call (CAP-RENDER-1/2). Four phases in a
 * fixed order, each its own module, each returning its input reference when it changes nothing:
 *   stub-replace -> error-purge -> chain-range-prune -> orphan-sweep.
 * Pure: it never mutates its input or the state, never throws on bad input, and returns diagnostics
 * instead of writing them (see diagnostics.ts for the at-most-once ledger). Everything a render keeps
 * lives in its own context; what renders of one state version share is the caller's memo. The input
 * is read once (read-messages.ts): the phases work on that reading, not on the message objects.
 *
 * Sizes: on a pruned render `beforeChars`/`afterChars` equal `JSON.stringify(array).length` of input
 * and output (message-size.ts). On a no-op render, and with `measure: false`, they are the 0/0
 * sentinel of the spec: a clean render measures nothing, and the footer keeps the last pruned
 * measurement (CAP-RENDER-21).
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { AgentMessage } from "../messages.ts";
import { DEFAULT_SETTINGS, type CondenseSettings } from "../settings.ts";
import type { CondenseState } from "../state.ts";
import { chainRangePrune } from "./chain-range-prune.ts";
import { errorPurge } from "./error-purge.ts";
import { reportMalformed } from "./malformed-scan.ts";
import type { Rendering } from "./message-shape.ts";
import { renderChars } from "./message-size.ts";
import { orphanSweep } from "./orphan-sweep.ts";
import { readMessages } from "./read-messages.ts";
import type { RenderContext, RenderStats } from "./render-context.ts";
import { createRenderMemo, rulesFor, type RenderMemo } from "./render-memo.ts";
import { decideRenderPolicy, type RenderPolicy } from "./render-policy.ts";
import { stubReplace } from "./stub-replace.ts";

export type { RenderStats } from "./render-context.ts";
export { createRenderMemo, type RenderMemo } from "./render-memo.ts";
export { decideRenderPolicy, type RenderPolicy } from "./render-policy.ts";

export interface RenderOptions {
  settings: CondenseSettings;
  /**
   * Measure `beforeChars`/`afterChars` on a pruned render (default true). A host that hands over fresh
   * clones every call (pi does) pays a measurement for it each time; a caller that only needs the
   * reclaim figure now and then passes false and gets the 0/0 sentinel.
   */
  measure?: boolean;
  /**
   * The error-purge and recovery-grace decisions taken when `state` was applied
   * (`decideRenderPolicy`). A caller that renders many times per state version passes the same
   * policy to each render, so earlier messages change only when the state does. Without one, the
   * policy is decided from these messages (a one-off render).
   */
  policy?: RenderPolicy;
  /**
   * What renders of this state version may share (`createRenderMemo(state)`). Ignored when it was made
   * for another state; without one, the render builds its own.
   */
  memo?: RenderMemo;
}

export interface RenderResult {
  /** The input reference itself when `pruned` is false. */
  messages: readonly AgentMessage[];
  pruned: boolean;
  beforeChars: number;
  afterChars: number;
  diagnostics: readonly Diagnostic[];
  stats: RenderStats;
}

const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

export function pruneMessages(
  messages: readonly AgentMessage[],
  state: CondenseState,
  options: RenderOptions,
): RenderResult {
  const stats: RenderStats = { stubbed: 0, purged: 0, chainsApplied: 0, swept: 0, malformed: 0 };
  if (!Array.isArray(messages)) return unchanged(messages, NO_DIAGNOSTICS, stats);
  const settings = options?.settings ?? DEFAULT_SETTINGS;
  if (settings.enabled === false || !state || !(state.records instanceof Map))
    return unchanged(messages, NO_DIAGNOSTICS, stats);
  const memo = options?.memo?.state === state ? options.memo : createRenderMemo(state);
  const ctx: RenderContext = {
    state,
    settings,
    rules: rulesFor(memo, settings),
    memo,
    stats,
    diagnostics: null,
    copy: null,
    policy: options?.policy ?? decideRenderPolicy(messages, settings),
  };
  const input = messages as readonly unknown[];
  // Sizes are taken in the reading pass when this render may prune and will measure.
  const measure = options?.measure !== false && (state.records.size > 0 || state.chains.length > 0);
  const read = readMessages(input, measure ? memo.sizes : null);
  let r: Rendering = read.rendering;
  reportMalformed(r, ctx);
  r = stubReplace(r, ctx);
  r = errorPurge(r, ctx);
  r = chainRangePrune(r, ctx);
  r = orphanSweep(r, ctx);
  const diagnostics = ctx.diagnostics ?? NO_DIAGNOSTICS;
  if (r.messages === input) return unchanged(messages, diagnostics, stats);
  const rendered = r.messages as readonly AgentMessage[];
  if (options?.measure === false)
    return { messages: rendered, pruned: true, beforeChars: 0, afterChars: 0, diagnostics, stats };
  const sizes = renderChars(input, r.messages, memo.sizes, read.sizes ?? undefined);
  return { messages: rendered, pruned: true, beforeChars: sizes.before, afterChars: sizes.after, diagnostics, stats };
}

/** The result of a render that changed nothing: the input itself, with the 0/0 size sentinel. */
function unchanged(
  messages: readonly AgentMessage[],
  diagnostics: readonly Diagnostic[],
  stats: RenderStats,
): RenderResult {
  return { messages, pruned: false, beforeChars: 0, afterChars: 0, diagnostics, stats };
}
