/**
 * pruneMessages: the render transform run before every LLM call (CAP-RENDER-1/2). Four phases in a
 * fixed order, each returning its input reference when it changes nothing:
 *   stub-replace -> error-purge -> chain-range-prune -> orphan-sweep.
 * Pure: it never mutates its input or the state, never throws on bad input, and returns diagnostics
 * instead of writing them (see diagnostics.ts for the at-most-once ledger).
 *
 * Sizes: on a pruned render `beforeChars`/`afterChars` equal `JSON.stringify(array).length` of input
 * and output, summed from per-message lengths memoized by message fingerprint for the state's lifetime
 * (message-size.ts), so a render serializes only messages it has not seen at this state version; the
 * output is measured from the input pass (its kept elements are input elements, in order) plus the
 * replacements Condense built. On a no-op render, and with `measure: false`, they are the 0/0 sentinel
 * of the spec: a clean render measures nothing, and the footer keeps the last pruned measurement
 * (CAP-RENDER-21).
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { AgentMessage } from "../messages.ts";
import { protectionRules } from "../protection.ts";
import { DEFAULT_SETTINGS, type CondenseSettings } from "../settings.ts";
import type { CondenseState } from "../state.ts";
import { chainRangePrune, endChainScan } from "./chain-range-prune.ts";
import { errorPurge } from "./error-purge.ts";
import { createSizeMemo, renderChars, type SizeMemo } from "./message-size.ts";
import { orphanSweep } from "./orphan-sweep.ts";
import type { RenderContext, RenderStats } from "./render-context.ts";
import { stubReplace } from "./stub-replace.ts";

export type { RenderStats } from "./render-context.ts";

export interface RenderOptions {
  settings: CondenseSettings;
  /**
   * Measure `beforeChars`/`afterChars` on a pruned render (default true). A host that hands over fresh
   * clones every call (pi does) pays a full serialization for it each time; a caller that only needs the
   * reclaim figure now and then passes false and gets the 0/0 sentinel.
   */
  measure?: boolean;
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
/** One size memo per state object: it lives as long as the session's mirror at that version. */
const sizeMemoByState = new WeakMap<CondenseState, SizeMemo>();
function sizeMemo(state: CondenseState): SizeMemo {
  let m = sizeMemoByState.get(state);
  if (!m) { m = createSizeMemo(); sizeMemoByState.set(state, m); }
  return m;
}

export function pruneMessages(messages: readonly AgentMessage[], state: CondenseState, options: RenderOptions): RenderResult {
  const stats: RenderStats = { stubbed: 0, purged: 0, chainsApplied: 0, swept: 0, malformed: 0 };
  if (!Array.isArray(messages)) return { messages, pruned: false, beforeChars: 0, afterChars: 0, diagnostics: NO_DIAGNOSTICS, stats };
  const settings = options?.settings ?? DEFAULT_SETTINGS;
  if (settings.enabled === false || !state || !(state.records instanceof Map)) {
    return { messages, pruned: false, beforeChars: 0, afterChars: 0, diagnostics: NO_DIAGNOSTICS, stats };
  }
  const measure = options?.measure !== false;
  const ctx: RenderContext = { state, settings, rules: protectionRules(settings), diagnostics: null, stats, assistantTurns: null, purgeCandidates: 0, chainScan: null, sizeMemo: measure && (state.records.size > 0 || state.chains.length > 0) ? sizeMemo(state) : null };
  const input = messages as readonly unknown[];
  // Phase 1 is also the render's only full pass: it classifies every message, takes the input sizes
  // and collects what phases 2 and 3 need (failed results with their openers, chain boundaries).
  let out = stubReplace(input, ctx);
  out = errorPurge(out, ctx);
  out = chainRangePrune(out, ctx);
  if (ctx.chainScan) endChainScan(ctx.chainScan);
  out = orphanSweep(out, ctx);
  const diagnostics = ctx.diagnostics ?? NO_DIAGNOSTICS;
  if (out === input) return { messages, pruned: false, beforeChars: 0, afterChars: 0, diagnostics, stats };
  if (!measure) return { messages: out as readonly AgentMessage[], pruned: true, beforeChars: 0, afterChars: 0, diagnostics, stats };
  const sizes = renderChars(input, out, sizeMemo(state), ctx.sizeMemo !== null);
  return { messages: out as readonly AgentMessage[], pruned: true, beforeChars: sizes.before, afterChars: sizes.after, diagnostics, stats };
}
