/**
 * Phase 3, chain-range prune (CAP-RENDER-8..17, CAP-PROT-4). Every compressed chain entry in the state
 * is applied positionally:
 *   1. resolve each entry's span (start user .. final assistant) with the one fail-closed resolver
 *      (chain-range.ts); an unresolved entry changes nothing and is reported;
 *   2. accept spans earliest start first, skipping one that starts inside, or at the start of, an
 *      accepted span (CAP-RENDER-11);
 *   3. per accepted span, drop the assistant turns, tool results and per-batch summaries strictly
 *      inside, insert one `<compressed-chain>` user message with the chain's summary right after the
 *      start user (unless one is already there), carry protected outputs into it, and strip the
 *      final assistant's thinking;
 *   4. drop per-batch summaries anywhere whose refs name what step 3 dropped (CAP-RENDER-15).
 * Applying the entries to already-rendered output changes nothing: the synthetic's presence
 * suppresses re-insertion, and nothing droppable remains inside.
 */
import { Boundary, resolveWith } from "../chain-range.ts";
import {
  overlapDiagnostic,
  rangeMismatchDiagnostic,
  unresolvedRangeDiagnostic,
  type Diagnostic,
} from "../diagnostics.ts";
import { isObject, type AssistantMessage, type ToolResultMessage, type UserMessage } from "../messages.ts";
import type { CondenseState } from "../state.ts";
import { lowerBoundAt } from "../sorted-search.ts";
import type { ChainEntry } from "../state-types.ts";
import { chainIdTagPrefix, compressedChainText, protectedOutputBlock } from "../texts.ts";
import { firstTextPart, isChainSynthetic, Kind, UNREADABLE, type Rendering } from "./message-shape.ts";
import { producedSize } from "./message-size.ts";
import { report, type RenderContext } from "./render-context.ts";
import { memoCopy, rangesOf, type RenderMemo } from "./render-memo.ts";
import { anyRefCovered } from "./summary-refs.ts";

interface Span {
  entry: ChainEntry;
  start: number;
  end: number;
  order: number;
  /** What step 3 emits for an accepted span: the synthetic after its start, its final assistant stripped. */
  synthetic: UserMessage | null;
  strippedFinal: AssistantMessage | null;
}

/** Per input position, what this phase does there. */
const _KEEP = 0;
const DROP = 1;
/** the final assistant, emitted without its thinking */
const STRIP = 2;
/** the start user, followed by the chain's synthetic */
const INSERT_AFTER = 4;

/**
 * The result occurrences the accepted spans dropped, for CAP-RENDER-15's exact match of refs with a
 * resultTimestamp: their positions in the rendering, sorted by timestamp and searched by bisection
 * on the timestamps the render read. Gathered only when such a ref is met (`droppedOccurrences`).
 */
type DroppedOccurrences = readonly number[];

/** Positions of the result occurrences (with a timestamp) inside the accepted spans, by timestamp. */
function droppedOccurrences({ kinds, timestamps }: Rendering, accepted: readonly Span[]): DroppedOccurrences {
  const at: number[] = [];
  let sorted = true;
  for (const span of accepted)
    for (let i = span.start + 1; i < span.end; i++) {
      if (kinds[i] !== Kind.RESULT || !Number.isFinite(timestamps[i]!)) continue;
      // A host writes results in time order, so sorting is normally never needed.
      if (at.length > 0 && timestamps[i]! < timestamps[at[at.length - 1]!]!) sorted = false;
      at.push(i);
    }
  if (!sorted) at.sort((a, b) => timestamps[a]! - timestamps[b]! || a - b);
  return at;
}

/** Whether the occurrence (id, ts) is among the dropped ones. */
function hasDropped({ messages, timestamps }: Rendering, at: DroppedOccurrences, ts: number, id: string): boolean {
  for (let k = lowerBoundAt(timestamps, at, ts); k < at.length && timestamps[at[k]!] === ts; k++)
    if ((messages[at[k]!] as ToolResultMessage).toolCallId === id) return true;
  return false;
}

export function chainRangePrune(r: Rendering, ctx: RenderContext): Rendering {
  const cc = ctx.settings.chainCompression;
  if (!cc || cc.enabled === false || ctx.state.chains.length === 0) return r;
  const { messages } = r;
  const accepted = acceptSpans(resolveSpans(r, ctx), ctx);
  if (accepted.length === 0) return r;
  ctx.stats.chainsApplied += accepted.length;

  const action = new Uint8Array(messages.length);
  const strip = cc.stripFinalAssistantThinking !== false;
  let changed = false;
  for (const span of accepted) {
    if (applySpan(r, span, action)) changed = true;
    const synthetic = present(r, span) ? null : insertSynthetic(r, span, ctx);
    if (synthetic) {
      span.synthetic = synthetic;
      action[span.start]! |= INSERT_AFTER;
      changed = true;
    }
    const final = strip ? withoutThinking(ctx.memo, messages[span.end] as AssistantMessage) : undefined;
    if (final) {
      span.strippedFinal = final;
      action[span.end]! |= STRIP;
      changed = true;
    }
  }
  if (changed && dropCoveredSummaries(r, accepted, action)) changed = true;
  if (!changed) return r;

  return emit(r, action, accepted);
}

/**
 * The output of the marked actions, its arrays allocated at their final length. The accepted spans
 * are disjoint and in history order (one may start where the last ended), so the span a marked
 * position starts or ends is found by moving forward through them.
 */
function emit({ messages, kinds, timestamps }: Rendering, action: Uint8Array, accepted: readonly Span[]): Rendering {
  let n = 0;
  for (let i = 0; i < action.length; i++) {
    if (!(action[i]! & DROP)) n++;
    if (action[i]! & INSERT_AFTER) n++;
  }
  const out: unknown[] = new Array(n);
  const outKinds = new Uint8Array(n);
  const outTimestamps = new Float64Array(n);
  let j = 0;
  let s = 0;
  for (let i = 0; i < messages.length; i++) {
    const a = action[i]!;
    if (!(a & DROP)) {
      if (a & STRIP) while (accepted[s]!.end !== i) s++;
      out[j] = a & STRIP ? accepted[s]!.strippedFinal : messages[i];
      outKinds[j] = kinds[i]!;
      outTimestamps[j++] = timestamps[i]!;
    }
    if (a & INSERT_AFTER) {
      while (accepted[s]!.start !== i) s++;
      const synthetic = accepted[s]!.synthetic!;
      out[j] = synthetic;
      outKinds[j] = Kind.USER;
      outTimestamps[j++] = synthetic.timestamp ?? Number.NaN;
    }
  }
  return { messages: out, kinds: outKinds, timestamps: outTimestamps };
}

/**
 * Step 1: every entry's span, in state order; unresolved entries are reported (CAP-RENDER-10). The
 * one resolver runs on what the render already read; Condense's own synthetics never count as a start.
 */
function resolveSpans({ messages, kinds, timestamps }: Rendering, ctx: RenderContext): Span[] {
  const chains = ctx.state.chains;
  const roles = new Uint8Array(kinds.length);
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i]! & ~UNREADABLE;
    // The resolver counts any message of the role, readable or not, with a numeric timestamp.
    if (Number.isNaN(timestamps[i]!)) continue;
    if (kind === Kind.USER) roles[i] = Boundary.USER;
    else if (kind === Kind.ASSISTANT) roles[i] = Boundary.ASSISTANT;
  }
  const ranges = resolveWith(rangesOf(ctx.memo), { roles, timestamps }, (i) => isChainSynthetic(messages[i]));
  const spans: Span[] = [];
  for (let order = 0; order < chains.length; order++) {
    const entry = chains[order]!;
    const r = ranges[order];
    if (r) spans.push({ entry, start: r.startIndex, end: r.endIndex, order, synthetic: null, strippedFinal: null });
    else report(ctx, unresolvedFor(ctx.memo, entry));
  }
  return spans;
}

/** Step 2 (CAP-RENDER-11): accepted spans are disjoint, so a later start can only meet the last one. */
function acceptSpans(spans: Span[], ctx: RenderContext): Span[] {
  spans.sort((a, b) => a.start - b.start || a.order - b.order);
  const accepted: Span[] = [];
  for (const s of spans) {
    const last = accepted[accepted.length - 1];
    if (last && last.start === s.start) {
      report(ctx, overlapDiagnostic(s.entry.blockId, `startIndex=${s.start} already claimed by ${last.entry.blockId}`));
      continue;
    }
    if (last && s.start < last.end) {
      report(ctx, overlapDiagnostic(s.entry.blockId, `starts inside ${last.entry.blockId}`));
      continue;
    }
    accepted.push(s);
  }
  return accepted;
}

/**
 * Step 3 for one span: marks what it drops (CAP-RENDER-12: assistants, tool results and per-batch
 * summaries; users, third-party customs, other roles and unreadable entries stay). Returns whether
 * anything was.
 */
function applySpan({ kinds }: Rendering, span: Span, action: Uint8Array): boolean {
  let any = false;
  for (let i = span.start + 1; i < span.end; i++) {
    const kind = kinds[i];
    if (kind !== Kind.RESULT && kind !== Kind.ASSISTANT && kind !== Kind.SUMMARY) continue;
    action[i] = DROP;
    any = true;
  }
  return any;
}

/** CAP-RENDER-14 idempotency: the span already holds this entry's synthetic (rendered output). */
function present({ messages, kinds }: Rendering, span: Span): boolean {
  let tag: string | undefined;
  for (let i = span.start + 1; i < span.end; i++) {
    if ((kinds[i]! & ~UNREADABLE) !== Kind.USER) continue;
    tag ??= chainIdTagPrefix(span.entry.blockId);
    if (firstTextPart(messages[i] as Record<string, unknown>)?.startsWith(tag)) return true;
  }
  return false;
}

/**
 * The synthetic to insert after the span's start: the chain's summary, with the protected outputs
 * of the span carried inside (CAP-PROT-4); and the CAP-RENDER-13 cross-check, informational only
 * (the range always wins; skipped on already-compressed output, where the recorded ids are gone).
 */
function insertSynthetic(r: Rendering, span: Span, ctx: RenderContext): UserMessage {
  const { entry } = span;
  const mismatch = crossCheck(ctx.memo, r, span);
  if (mismatch) report(ctx, mismatch);
  const protectedIds = entry.protectedToolCallIds ?? [];
  const sources: Record<string, unknown>[] = [];
  if (protectedIds.length > 0) {
    for (let i = span.start + 1; i < span.end; i++) {
      const m = r.messages[i] as Record<string, unknown>;
      if (r.kinds[i] === Kind.RESULT && protectedIds.includes(m.toolCallId as string)) sources.push(m);
    }
  }
  const message = synthetic(ctx.state, ctx.memo, entry, sources);
  producedSize(ctx.memo.sizes, message);
  return message;
}

/**
 * CAP-RENDER-13: the distinct bare ids met in the span against the entry's recorded ones. A span is
 * the history between two timestamps that occur once, and a host only appends to history, so at one
 * state version a span at the same positions holds the same ids: its verdict is taken once (a branch
 * rewritten to the very same positions keeps the earlier verdict of this informational check).
 */
function crossCheck(memo: RenderMemo, r: Rendering, span: Span): Diagnostic | null {
  const { entry } = span;
  const last = memo.crossChecks.get(entry.blockId);
  if (last && last.start === span.start && last.end === span.end) return last.mismatch;
  const recorded = new Set(entry.droppedToolCallIds ?? []);
  const met = new Set(spanIds(r, span));
  let seenRecorded = 0;
  for (const id of met) if (recorded.has(id)) seenRecorded++;
  const mismatch =
    met.size !== seenRecorded || seenRecorded !== recorded.size
      ? rangeMismatchDiagnostic(entry.blockId, recorded.size, met.size)
      : null;
  memo.crossChecks.set(entry.blockId, { start: span.start, end: span.end, mismatch });
  return mismatch;
}

/**
 * Step 4 (CAP-RENDER-15): per-batch summaries anywhere whose refs name what step 3 dropped, refs with
 * a timestamp by exact occurrence, legacy refs by bare id (the calls and results of the accepted
 * spans, gathered only when such a ref is met). Returns whether any was dropped.
 */
function dropCoveredSummaries(r: Rendering, accepted: readonly Span[], action: Uint8Array): boolean {
  const { messages, kinds } = r;
  const dropped: DroppedByAccepted = { r, accepted, occurrences: null, bareIds: null };
  let any = false;
  for (let i = 0; i < messages.length; i++) {
    if ((kinds[i]! & ~UNREADABLE) !== Kind.SUMMARY || action[i]! & DROP) continue;
    if (anyRefCovered(messages[i] as { details?: unknown }, dropped, droppedOccurrence, droppedBareId)) {
      action[i]! |= DROP;
      any = true;
    }
  }
  return any;
}

/** What the accepted spans dropped, each kind of ref's answer gathered on first need. */
interface DroppedByAccepted {
  readonly r: Rendering;
  readonly accepted: readonly Span[];
  occurrences: DroppedOccurrences | null;
  bareIds: Set<string> | null;
}

function droppedOccurrence(d: DroppedByAccepted, ts: number, id: string): boolean {
  return hasDropped(d.r, (d.occurrences ??= droppedOccurrences(d.r, d.accepted)), ts, id);
}

function droppedBareId(d: DroppedByAccepted, id: string): boolean {
  return (d.bareIds ??= droppedBareIds(d.r, d.accepted)).has(id);
}

/** Bare ids of the calls and results inside the accepted spans. */
function droppedBareIds(r: Rendering, accepted: readonly Span[]): Set<string> {
  const ids = new Set<string>();
  for (const span of accepted) for (const id of spanIds(r, span)) ids.add(id);
  return ids;
}

/** The tool-call ids inside a span, in order: each readable assistant's calls, each result's id. */
function spanIds({ messages, kinds }: Rendering, span: Span): string[] {
  const ids: string[] = [];
  for (let i = span.start + 1; i < span.end; i++) {
    const kind = kinds[i];
    if (kind === Kind.ASSISTANT) {
      for (const b of (messages[i] as AssistantMessage).content)
        if (isObject(b) && b.type === "toolCall" && typeof b.id === "string") ids.push(b.id);
    } else if (kind === Kind.RESULT) ids.push((messages[i] as ToolResultMessage).toolCallId);
  }
  return ids;
}

/** An entry's unresolved-range diagnostic, one frozen object per state version (the client keeps it). */
function unresolvedFor(memo: RenderMemo, entry: ChainEntry): Diagnostic {
  let d = memo.unresolved.get(entry.blockId);
  if (!d) {
    d = Object.freeze(
      unresolvedRangeDiagnostic(entry.blockId, entry.startUserTimestamp, entry.finalAssistantTimestamp ?? null),
    );
    memo.unresolved.set(entry.blockId, d);
  }
  return d;
}

/** The stored range summary, else the distinct per-batch summaries covering the dropped keys. */
function rawBody(state: CondenseState, entry: ChainEntry): string {
  if (typeof entry.rangeSummaryText === "string" && entry.rangeSummaryText.length > 0) return entry.rangeSummaryText;
  const keys = entry.droppedOccurrenceKeys ?? entry.droppedToolCallIds ?? [];
  const ids = new Set<string>();
  for (const k of keys) for (const s of state.summariesByKey.get(k) ?? []) ids.add(s.id);
  const texts = new Set<string>();
  for (const s of state.summaries) if (ids.has(s.id)) texts.add(s.text);
  return [...texts].join("\n\n");
}

/** `{bN}` placeholders replaced once by that block's body: no recursion, never self, unknown stays. */
function expandedBody(state: CondenseState, memo: RenderMemo, entry: ChainEntry): string {
  let body = memo.chainBodies.get(entry.blockId);
  if (body !== undefined) return body;
  body = rawBody(state, entry).replace(/\{(b\d+)\}/g, (literal, id: string) => {
    const other = id === entry.blockId ? undefined : state.chains.find((e) => e.blockId === id);
    return other ? rawBody(state, other) : literal;
  });
  memo.chainBodies.set(entry.blockId, body);
  return body;
}

/** CAP-RENDER-14: the synthetic chain message (the same object while its protected sources are). */
function synthetic(
  state: CondenseState,
  memo: RenderMemo,
  entry: ChainEntry,
  sources: readonly Record<string, unknown>[],
): UserMessage {
  const hit = memo.synthetics.get(entry.blockId);
  if (hit && sameSources(hit.sources, sources)) return hit.message;
  let blocks = "";
  for (const r of sources) {
    const text = (r.content as unknown[])
      .filter((p) => isObject(p) && p.type === "text" && typeof p.text === "string")
      .map((p) => (p as { text: string }).text)
      .join("\n");
    blocks += protectedOutputBlock(typeof r.toolName === "string" ? r.toolName : "unknown", text);
  }
  const text = compressedChainText(entry.blockId, entry.toolRefs ?? [], expandedBody(state, memo, entry), blocks);
  const message: UserMessage = { role: "user", content: [{ type: "text", text }], timestamp: entry.compressedAt };
  memo.synthetics.set(entry.blockId, { sources, message });
  return message;
}

function sameSources(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** CAP-RENDER-16: the final assistant without its thinking blocks; undefined when it has none. */
function withoutThinking(memo: RenderMemo, m: AssistantMessage): AssistantMessage | undefined {
  if (!isObject(m) || !Array.isArray(m.content) || !m.content.some(isThinking)) return undefined;
  const copy = memoCopy(memo, m, "strip-thinking", () => ({ ...m, content: m.content.filter(isNotThinking) }));
  producedSize(memo.sizes, copy);
  return copy;
}

const isThinking = (b: unknown) => isObject(b) && b.type === "thinking";
const isNotThinking = (b: unknown) => !isThinking(b);
