/**
 * What renders of one state version may share: the stub built for each occurrence, the chain bodies
 * and synthetics, and the size memo. All of it is a pure function of the state (and, for protection
 * verdicts, of the settings), so sharing it changes no byte of any render; it only spares rebuilding
 * the same strings on every LLM call. The caller owns the memo (the client keeps one per applied
 * state); `pruneMessages` without one builds a fresh memo for that call alone.
 */
import { rangeIndex, type RangeIndex } from "../chain-range.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { ToolResultMessage, UserMessage } from "../messages.ts";
import { protectionRules, type ProtectionRules } from "../protection.ts";
import type { CondenseSettings } from "../settings.ts";
import type { CondenseState } from "../state.ts";
import type { ToolCallRecord } from "../state-types.ts";
import { createSizeMemo, type SizeMemo } from "./message-size.ts";

/** A summarized occurrence: its record and the stub that replaces it. */
export interface StubPlan {
  record: ToolCallRecord;
  stub: ToolResultMessage;
}

/** What stub-replace planned at one input position: the occurrence it met there, and the plan. */
export interface PlannedAt {
  id: string;
  /** The result's timestamp as the render read it (NaN without a numeric one). */
  ts: number;
  toolName: unknown;
  plan: StubPlan | null;
}

export interface RenderMemo {
  readonly state: CondenseState;
  readonly sizes: SizeMemo;
  /**
   * Stub plans per occurrence, by tool-call id and then result timestamp (`bareStubs` for results
   * without one); plan null when the occurrence stays raw. A render finds an occurrence without
   * building its key string; an id rarely has more than one occurrence, so a short list serves.
   */
  readonly stubs: Map<string, { ts: number; plan: StubPlan | null }[]>;
  readonly bareStubs: Map<string, StubPlan | null>;
  /**
   * Per input position, the occurrence planned there last. A host appends to its history, so the next
   * render meets the same occurrences at the same positions: comparing id, timestamp and tool name
   * takes the plan from here, and only the new tail is looked up in `stubs`. Kept dense (grown to the
   * input's length before a pass).
   */
  readonly plannedAt: (PlannedAt | undefined)[];
  /** The state's chain boundaries, sorted once (`rangesOf`). */
  ranges: RangeIndex | null;
  /**
   * Copies this state's renders built from a host message (purged and thinking-stripped assistants),
   * by the message they were built from, with what was changed (one change per message: the purge
   * copies the host's assistant, the strip copies that copy), so a host that hands over the same
   * objects gets the same copies back.
   */
  readonly copies: WeakMap<object, { change: string; copy: object }>;
  /** Per chain entry, where its span was when the cross-check was taken, and the verdict. */
  readonly crossChecks: Map<string, { start: number; end: number; mismatch: Diagnostic | null }>;
  /** Protection verdicts per record under `rulesFor`'s settings (reset when the settings change). */
  protectedRecords: WeakMap<ToolCallRecord, boolean>;
  rules: { settings: CondenseSettings; rules: ProtectionRules } | null;
  /** blockId -> the chain's summary body with `{bN}` placeholders expanded. */
  readonly chainBodies: Map<string, string>;
  /** blockId -> the synthetic last built and the protected results it carries. */
  readonly synthetics: Map<string, { sources: readonly unknown[]; message: UserMessage }>;
  /** blockId -> its unresolved-range diagnostic (reported on every render while unresolved). */
  readonly unresolved: Map<string, Diagnostic>;
}

export function createRenderMemo(state: CondenseState): RenderMemo {
  return {
    state,
    sizes: createSizeMemo(),
    stubs: new Map(),
    bareStubs: new Map(),
    plannedAt: [],
    ranges: null,
    copies: new WeakMap(),
    crossChecks: new Map(),
    protectedRecords: new WeakMap(),
    rules: null,
    chainBodies: new Map(),
    synthetics: new Map(),
    unresolved: new Map(),
  };
}

/** The range index of the state's chains, built on first use. */
export function rangesOf(memo: RenderMemo): RangeIndex {
  memo.ranges ??= rangeIndex(memo.state.chains);
  return memo.ranges;
}

/** The protection rules for these settings, compiled once per memo and settings object. */
export function rulesFor(memo: RenderMemo, settings: CondenseSettings): ProtectionRules {
  if (memo.rules?.settings !== settings) {
    memo.rules = { settings, rules: protectionRules(settings) };
    memo.protectedRecords = new WeakMap();
  }
  return memo.rules.rules;
}

/**
 * The copy of `source` made for `change`, built once per memo (same bytes whatever the memo). When
 * `build` changes nothing (returns `source`), nothing is kept: pi hands over fresh clones, so such an
 * entry would never be hit again, and an entry whose value holds its own key survives young-generation
 * collections (V8 keeps it until a full GC), dragging the clone's message into old space on every call.
 */
export function memoCopy<T extends object>(memo: RenderMemo, source: object, change: string, build: () => T): T {
  const last = memo.copies.get(source);
  if (last?.change === change) return last.copy as T;
  const copy = build();
  if (copy !== source) memo.copies.set(source, { change, copy });
  return copy;
}
