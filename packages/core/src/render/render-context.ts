/**
 * What one render threads through its phases: the inputs every phase reads and the diagnostics and
 * counters they report. Diagnostics are allocated lazily so a clean render allocates no array.
 */
import type { Diagnostic } from "../diagnostics.ts";
import type { ProtectionRules } from "../protection.ts";
import type { CondenseSettings } from "../settings.ts";
import type { CondenseState } from "../state.ts";
import type { ChainScan } from "./chain-range-prune.ts";
import type { SizeMemo } from "./message-size.ts";

export interface RenderStats {
  /** Tool results replaced by a summary or stored-output stub. */
  stubbed: number;
  /** Tool-call argument objects replaced by the purged placeholder. */
  purged: number;
  /** Chain entries whose range resolved and was applied. */
  chainsApplied: number;
  /** Orphan tool results removed. */
  swept: number;
  /** Messages the render path could not read and passed through untouched. */
  malformed: number;
}

export interface RenderContext {
  readonly state: CondenseState;
  readonly settings: CondenseSettings;
  readonly rules: ProtectionRules;
  diagnostics: Diagnostic[] | null;
  readonly stats: RenderStats;
  /**
   * Readable assistant messages in the input, counted by the first pass (stub-replace) so error purge
   * needs no counting pass of its own; null until counted. Stubbing replaces tool results only, so the
   * count holds for phase 2's input.
   */
  assistantTurns: number | null;
  /**
   * How many entries the first pass wrote to the error-purge candidate buffer (stub-replace.ts
   * `purgeCandidateBuffer`): failed tool results as flat triples (result index, index of the
   * assistant that opened its turn, assistant turns counted up to and including that opener); 0 when
   * there is none or error purge is off. Positions hold for phase 2's input (phase 1 replaces in place).
   */
  purgeCandidates: number;
  /** Chain boundaries and per-batch summary positions found by the first pass; null when no entry applies. */
  chainScan: ChainScan | null;
  /**
   * Size memo when this render measures and the state can prune (the first pass then sizes every
   * input element), else null: a render with an empty state measures afterwards, only if it pruned.
   */
  readonly sizeMemo: SizeMemo | null;
}

export function report(ctx: RenderContext, d: Diagnostic): void {
  (ctx.diagnostics ??= []).push(d);
}
