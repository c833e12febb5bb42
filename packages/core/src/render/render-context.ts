/**
 * What one render threads through its four phases: the inputs every phase reads (state, settings,
 * the policy decided when the state was applied, the memo of that state version) and what the
 * phases report (diagnostics, counters, the messages they built). Created by each `pruneMessages`
 * call and dropped with it, so no render can see another's scratch.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { ProtectionRules } from "../protection.ts";
import type { CondenseSettings } from "../settings.ts";
import type { CondenseState } from "../state.ts";
import type { RenderMemo } from "./render-memo.ts";
import type { RenderPolicy } from "./render-policy.ts";

export interface RenderStats {
  /** Tool results replaced by a summary or stored-output stub. */
  stubbed: number;
  /** Tool-call argument objects replaced by the purged placeholder. */
  purged: number;
  /** Chain entries whose range resolved and was applied. */
  chainsApplied: number;
  /** Orphan tool results removed. */
  swept: number;
  /** Messages the render path could not read (passed through unless pairing forbids it). */
  malformed: number;
}

export interface RenderContext {
  readonly state: CondenseState;
  readonly settings: CondenseSettings;
  readonly rules: ProtectionRules;
  readonly policy: RenderPolicy;
  readonly memo: RenderMemo;
  readonly stats: RenderStats;
  diagnostics: Diagnostic[] | null;
  /** The last copy of the messages a phase of this render made (`writable`), null before any. */
  copy: unknown[] | null;
}

export function report(ctx: RenderContext, d: Diagnostic): void {
  (ctx.diagnostics ??= []).push(d);
}

/**
 * An array a phase may write into in place of `messages`: the copy an earlier phase of this render
 * made when `messages` is that copy (no caller sees it yet), else a new copy. Phases 1 and 2 replace
 * messages in place, so the second writes into the first's copy instead of copying the history again.
 */
export function writable(ctx: RenderContext, messages: readonly unknown[]): unknown[] {
  if (ctx.copy !== messages) ctx.copy = messages.slice();
  return ctx.copy;
}
