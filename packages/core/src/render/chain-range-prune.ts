/**
 * Phase 3, chain-range prune (CAP-RENDER-8..17, CAP-PROT-4). Every compressed chain entry in the state
 * is applied positionally: its span (start user .. final assistant) is resolved fail-closed, the
 * assistant turns, tool results and per-batch summaries strictly inside are dropped, and one synthetic
 * `<compressed-chain>` user message carrying the chain's summary is inserted right after the start
 * user. Applying the entries to already-rendered output changes nothing (the synthetic's presence
 * suppresses re-insertion, and nothing droppable remains inside).
 */
import { overlapDiagnostic, rangeMismatchDiagnostic, unresolvedRangeDiagnostic, type Diagnostic } from "../diagnostics.ts";
import { isObject, isSummaryMessage, type AssistantMessage, type UserMessage } from "../messages.ts";
import type { CondenseState } from "../state.ts";
import type { ChainEntry } from "../state-types.ts";
import { chainIdTagPrefix, compressedChainText, protectedOutputBlock } from "../texts.ts";
import { firstTextPart, isChainSynthetic, isReadableAssistant } from "./message-shape.ts";
import { markProduced } from "./message-size.ts";
import { report, type RenderContext } from "./render-context.ts";
import { anyRefCovered } from "./summary-refs.ts";

/** Per entry, derived once per state version. */
interface EntryInfo {
  tag: string;
  protectedIds: ReadonlySet<string>;
  /** recorded dropped ids -> the last walk stamp that counted them (see countRecorded) */
  recorded: Map<string, number>;
  /**
   * The ids (calls and results, in walk order) of the range the last count was taken over, and that
   * count. The count depends on nothing else, so a walk meeting the same sequence reuses it: on a
   * host's fresh clone this compares each id with the one kept (no hashing of fresh strings into
   * `recorded`); any difference counts again. It starts as the count of the empty sequence.
   */
  seq: string[];
  seqRecordedSeen: number;
  seqUnrecorded: boolean;
}

interface ChainCache {
  blockById: Map<string, ChainEntry>;
  info: Map<string, EntryInfo>;
  rawBodies: Map<string, string>;
  bodies: Map<string, string>;
  /** blockId -> the synthetic and the protected result messages it was built from. */
  synthetics: Map<string, { sources: readonly unknown[]; message: UserMessage }>;
}
const cacheByState = new WeakMap<CondenseState, ChainCache>();
const strippedByAssistant = new WeakMap<object, AssistantMessage>();
/**
 * An entry's unresolved-range diagnostic depends on the entry alone, and an entry whose range is not
 * in the context yet (a later chain, early in a replayed session) is reported on every render: built
 * once per entry and reused (frozen, since the client hands it to listeners), so such renders allocate
 * no diagnostic strings.
 */
const unresolvedByEntry = new WeakMap<ChainEntry, Diagnostic>();
function unresolvedFor(entry: ChainEntry): Diagnostic {
  let d = unresolvedByEntry.get(entry);
  if (!d) {
    d = Object.freeze(unresolvedRangeDiagnostic(entry.blockId, entry.startUserTimestamp, entry.finalAssistantTimestamp ?? null));
    unresolvedByEntry.set(entry, d);
  }
  return d;
}
const NO_SOURCES: readonly Record<string, unknown>[] = Object.freeze([]);

function chainCache(state: CondenseState): ChainCache {
  let c = cacheByState.get(state);
  if (!c) {
    c = { blockById: new Map(state.chains.map((e) => [e.blockId, e])), info: new Map(), rawBodies: new Map(), bodies: new Map(), synthetics: new Map() };
    cacheByState.set(state, c);
  }
  return c;
}

function entryInfo(cache: ChainCache, entry: ChainEntry): EntryInfo {
  let i = cache.info.get(entry.blockId);
  if (!i) {
    i = { tag: chainIdTagPrefix(entry.blockId), protectedIds: new Set(entry.protectedToolCallIds ?? []), recorded: new Map((entry.droppedToolCallIds ?? []).map((id) => [id, 0])), seq: [], seqRecordedSeen: 0, seqUnrecorded: false };
    cache.info.set(entry.blockId, i);
  }
  return i;
}

/** The stored range summary, else the distinct per-batch summaries covering the dropped keys. */
function rawBody(state: CondenseState, cache: ChainCache, entry: ChainEntry): string {
  let body = cache.rawBodies.get(entry.blockId);
  if (body !== undefined) return body;
  if (typeof entry.rangeSummaryText === "string" && entry.rangeSummaryText.length > 0) body = entry.rangeSummaryText;
  else {
    const keys = entry.droppedOccurrenceKeys ?? entry.droppedToolCallIds ?? [];
    const ids = new Set<string>();
    for (const k of keys) for (const s of state.summariesByKey.get(k) ?? []) ids.add(s.id);
    const texts = new Set<string>();
    for (const s of state.summaries) if (ids.has(s.id)) texts.add(s.text);
    body = [...texts].join("\n\n");
  }
  cache.rawBodies.set(entry.blockId, body);
  return body;
}

/** `{bN}` placeholders replaced once by that block's body: no recursion, never self, unknown stays. */
function expandedBody(state: CondenseState, cache: ChainCache, entry: ChainEntry): string {
  let body = cache.bodies.get(entry.blockId);
  if (body !== undefined) return body;
  body = rawBody(state, cache, entry).replace(/\{(b\d+)\}/g, (literal, id: string) => {
    const other = id === entry.blockId ? undefined : cache.blockById.get(id);
    return other ? rawBody(state, cache, other) : literal;
  });
  cache.bodies.set(entry.blockId, body);
  return body;
}

function synthetic(state: CondenseState, cache: ChainCache, entry: ChainEntry, sources: readonly Record<string, unknown>[]): UserMessage {
  const hit = cache.synthetics.get(entry.blockId);
  if (hit && sameSources(hit.sources, sources)) return hit.message;
  let blocks = "";
  for (const r of sources) {
    const parts = r.content as unknown[];
    const text = parts.filter((p) => isObject(p) && p.type === "text" && typeof p.text === "string").map((p) => (p as { text: string }).text).join("\n");
    blocks += protectedOutputBlock(typeof r.toolName === "string" ? r.toolName : "unknown", text);
  }
  const text = compressedChainText(entry.blockId, entry.toolRefs ?? [], expandedBody(state, cache, entry), blocks);
  const message: UserMessage = markProduced({ role: "user", content: [{ type: "text", text }], timestamp: entry.compressedAt });
  cache.synthetics.set(entry.blockId, { sources, message });
  return message;
}

function sameSources(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** CAP-RENDER-16: the final assistant without its thinking blocks (same object when it has none). */
function withoutThinking(m: unknown): unknown {
  if (!isReadableAssistant(m)) return m;
  if (!m.content.some((b) => isObject(b) && b.type === "thinking")) return m;
  let s = strippedByAssistant.get(m);
  if (!s) {
    s = markProduced({ ...m, content: m.content.filter((b) => !(isObject(b) && b.type === "thinking")) });
    strippedByAssistant.set(m, s);
  }
  return s;
}

interface Accepted { entry: ChainEntry; start: number; end: number; order: number }

/** Boundary timestamps of the state's entries (entry positions in `state.chains`), once per state. */
/** timestamp -> entry position, or positions when entries share it (a hand-built state may). */
type ByTs = Map<number, number | number[]>;
/**
 * The same map as sorted keys for lookups from the render's first pass: a Map lookup takes its key as
 * a heap object, so optimized code looking up a message's timestamp (an unboxed double there) boxes it
 * first, one allocation per user and assistant per render; a bisection over a Float64Array compares
 * doubles in place. NaN (never sorted, matched by the Map's SameValueZero) is left to the Map.
 */
export interface TsIndex { readonly map: ByTs; readonly keys: Float64Array; readonly vals: readonly (number | number[])[] }
function tsIndex(map: ByTs): TsIndex {
  const keys = Float64Array.from([...map.keys()].filter((t) => t === t)).sort();
  return { map, keys, vals: Array.from(keys, (t) => map.get(t)!) };
}
/** The first index in `keys[0..hi)` (sorted) whose value is not below `ts`. */
function lowerBound(keys: Float64Array, ts: number, hi: number): number {
  let lo = 0;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (keys[mid]! < ts) lo = mid + 1; else hi = mid; }
  return lo;
}
/** `ix.map.get(ts)` without boxing `ts`. */
export function tsLookup(ix: TsIndex, ts: number): number | number[] | undefined {
  if (ts !== ts) return ix.map.get(ts);
  const keys = ix.keys;
  const lo = lowerBound(keys, ts, keys.length);
  return lo < keys.length && keys[lo] === ts ? ix.vals[lo] : undefined;
}
/**
 * `tsLookup` for the first pass, which meets timestamps in (nearly always) ascending order: a cursor
 * per index (`scan.cursor`: starts, ends) advances over the sorted keys, so a lookup costs a compare
 * or two instead of a bisection; a timestamp below the cursor (out of order) bisects as before.
 */
export function tsSeek(ix: TsIndex, ts: number, scan: ChainScan, which: 0 | 1): number | number[] | undefined {
  if (ts !== ts) return ix.map.get(ts);
  const keys = ix.keys;
  const cursor = scan.cursor;
  let lo = cursor[which]!;
  if (lo > 0 && keys[lo - 1]! >= ts) lo = lowerBound(keys, ts, keys.length);
  else while (lo < keys.length && keys[lo]! < ts) lo++;
  cursor[which] = lo;
  return lo < keys.length && keys[lo] === ts ? ix.vals[lo] : undefined;
}
interface Boundaries { starts: TsIndex; ends: TsIndex }
function file(map: ByTs, ts: number, k: number): void {
  const had = map.get(ts);
  map.set(ts, had === undefined ? k : Array.isArray(had) ? [...had, k] : [had, k]);
}
const boundariesByState = new WeakMap<CondenseState, Boundaries>();
function boundaries(state: CondenseState): Boundaries {
  let b = boundariesByState.get(state);
  if (!b) {
    const starts: ByTs = new Map();
    const ends: ByTs = new Map();
    state.chains.forEach((e, k) => {
      file(starts, e.startUserTimestamp, k);
      const f = e.finalAssistantTimestamp;
      if (typeof f === "number") file(ends, f, k);
    });
    b = { starts: tsIndex(starts), ends: tsIndex(ends) };
    boundariesByState.set(state, b);
  }
  return b;
}

/**
 * The results one render's walk dropped, as (timestamp, id) in walk order, for CAP-RENDER-15's
 * occurrence match: module buffers (a render is synchronous and never nested), so the walk allocates
 * nothing per result. A host writes results in timestamp order, so the list is normally sorted and
 * is searched by bisection; otherwise a map is built once.
 */
let droppedTs = new Float64Array(1024);
const droppedId: string[] = [];
let droppedCount = 0;
let droppedInOrder = true;
function noteDropped(ts: number, id: string): void {
  if (droppedCount === droppedTs.length) { const g = new Float64Array(2 * droppedTs.length); g.set(droppedTs); droppedTs = g; }
  if (droppedCount > 0 && ts < droppedTs[droppedCount - 1]!) droppedInOrder = false;
  droppedTs[droppedCount] = ts;
  droppedId[droppedCount] = id;
  droppedCount++;
}
function droppedSortedHas(ts: number, id: string): boolean {
  for (let k = lowerBound(droppedTs, ts, droppedCount); k < droppedCount && droppedTs[k] === ts; k++) if (droppedId[k] === id) return true;
  return false;
}

/** Render counter: marks which recorded ids one entry's walk has already counted (no per-render set). */
let walkStamp = 0;

/**
 * What the render's first pass (stub-replace.ts) collects for this phase, so that resolving every
 * entry costs no pass of its own (CAP-RENDER-9, same rule as chain-range.ts buildRangeIndex with
 * synthetics skipped: a boundary must occur exactly once and the start must come first): per entry,
 * the position and count of its start user and final assistant, and where the per-batch summaries are.
 */
export interface ChainScan {
  /** the state's boundary maps (built once per state) */
  readonly starts: TsIndex;
  readonly ends: TsIndex;
  /** tsSeek's positions in starts.keys and ends.keys */
  readonly cursor: Int32Array;
  /** [start position, end position] per entry, -1 when absent */
  readonly pos: Int32Array;
  /** [start count, end count] per entry */
  readonly count: Int32Array;
  readonly summaryAt: number[];
  /**
   * What the range walk must do with each position (K_*), classified by the first pass so the walk
   * reads only the messages it acts on and no role string. Valid for this render only: one module
   * buffer, reused (a render is synchronous and never nested).
   */
  readonly kind: Uint8Array;
  /**
   * The tool-call ids of every readable assistant, read by the first pass while the message is in
   * cache: those of position i are callIds[callAt[i] .. callAt[i] + callCount[i]). Error purge's
   * copies keep every id, so they hold for this phase's input. Module buffers like `kind`.
   */
  readonly callAt: Int32Array;
  readonly callCount: Int32Array;
  readonly callIds: string[];
  /** ids written so far */
  calls: number;
}

/** Left in place by the walk: not an object, an unreadable assistant/result/summary, any other role. */
export const K_SKIP = 0;
/** Dropped inside a range; its tool-call ids are counted. */
export const K_ASSISTANT = 1;
/** Dropped inside a range; its id and timestamp are noted. */
export const K_RESULT = 2;
/** A readable per-batch summary: dropped inside a range. */
export const K_SUMMARY = 3;
/** Left in place; a user (or an array element) is checked for the entry's synthetic. */
export const K_USER = 4;
let kindBuffer = new Uint8Array(1024);
let callAtBuffer = new Int32Array(1024);
let callCountBuffer = new Int32Array(1024);
const callIdBuffer: string[] = [];
/** Per entry [start, end] positions and counts (module buffers; views of the first 2 x entries). */
let posBuffer = new Int32Array(64);
let countBuffer = new Int32Array(64);
/** Per-position flags and the messages inserted after / replacing a position: module buffers, cleared by the render that set them. */
let dropBuffer = new Uint8Array(1024);
const insertBuffer: (UserMessage | undefined)[] = [];
const replaceBuffer: unknown[] = [];
/**
 * This render's resolved and accepted ranges: the first `n` of two module lists, whose records come
 * from a pool reused by every render (none is kept past the render), so resolving allocates nothing.
 */
const rangePool: Accepted[] = [];
const resolvedBuffer: Accepted[] = [];
const acceptedBuffer: Accepted[] = [];
const byStart = (a: Accepted, b: Accepted) => a.start - b.start || a.order - b.order;
function inStartOrder(list: readonly Accepted[], n: number): boolean {
  for (let k = 1; k < n; k++) if (byStart(list[k - 1]!, list[k]!) > 0) return false;
  return true;
}
const DROPPED = 1;
const REPLACED = 2;
const INSERT_AFTER = 4;

/** A fresh scan record when this phase will run on this render, else null. */
export function beginChainScan(state: CondenseState, settings: RenderContext["settings"], n: number): ChainScan | null {
  const cc = settings.chainCompression;
  if (!cc || cc.enabled === false || state.chains.length === 0) return null;
  const { starts, ends } = boundaries(state);
  const e = state.chains.length;
  if (kindBuffer.length < n) {
    const size = Math.max(n, 2 * kindBuffer.length);
    kindBuffer = new Uint8Array(size);
    callAtBuffer = new Int32Array(size);
    callCountBuffer = new Int32Array(size);
  }
  if (posBuffer.length < 2 * e) { posBuffer = new Int32Array(2 * e); countBuffer = new Int32Array(2 * e); }
  const pos = posBuffer.subarray(0, 2 * e).fill(-1);
  const count = countBuffer.subarray(0, 2 * e).fill(0);
  return {
    starts, ends, cursor: new Int32Array(2), pos, count, summaryAt: [], kind: kindBuffer,
    callAt: callAtBuffer, callCount: callCountBuffer, callIds: callIdBuffer, calls: 0,
  };
}

/** The first pass's part of the walk for a readable assistant at position i: its tool-call ids. */
export function noteCalls(scan: ChainScan, c: readonly unknown[], i: number): void {
  const ids = scan.callIds;
  const from = scan.calls;
  let to = from;
  for (let j = 0; j < c.length; j++) {
    const b = c[j] as Record<string, unknown> | null;
    if (typeof b !== "object" || b === null || b.type !== "toolCall") continue;
    const id = b.id;
    if (typeof id === "string") ids[to++] = id;
  }
  scan.callAt[i] = from;
  scan.callCount[i] = to - from;
  scan.calls = to;
}

/** Drops the id references of the last render (the buffers outlive it). */
export function endChainScan(scan: ChainScan): void {
  scan.callIds.fill("", 0, scan.calls);
  scan.calls = 0;
}

/** A user at position i whose timestamp starts entries `k` (the caller has ruled out synthetics). */
export function noteStart(scan: ChainScan, k: number | number[], i: number): void {
  if (typeof k === "number") { scan.pos[2 * k] = i; scan.count[2 * k]! += 1; }
  else for (const j of k) { scan.pos[2 * j] = i; scan.count[2 * j]! += 1; }
}

/** An assistant at position i whose timestamp ends entries `k`. */
export function noteEnd(scan: ChainScan, k: number | number[], i: number): void {
  if (typeof k === "number") { scan.pos[2 * k + 1] = i; scan.count[2 * k + 1]! += 1; }
  else for (const j of k) { scan.pos[2 * j + 1] = i; scan.count[2 * j + 1]! += 1; }
}

/** The boundary rule for any object element (the first pass inlines it for readable messages). */
export function noteBoundary(scan: ChainScan, r: Record<string, unknown>, i: number): void {
  const role = r.role;
  const ts = r.timestamp;
  if (role === "user") {
    if (typeof ts !== "number") return;
    const k = tsLookup(scan.starts, ts);
    if (k !== undefined && !isChainSynthetic(r)) noteStart(scan, k, i);
  } else if (role === "assistant") {
    if (typeof ts !== "number") return;
    const k = tsLookup(scan.ends, ts);
    if (k !== undefined) noteEnd(scan, k, i);
  } else if (role === "custom" && isSummaryMessage(r)) scan.summaryAt.push(i);
}

/** The bare ids a pass dropped (calls and results inside accepted ranges); only legacy refs need it. */
function droppedIds(messages: readonly unknown[], accepted: readonly Accepted[]): Set<string> {
  const ids = new Set<string>();
  for (const a of accepted) {
    for (let i = a.start + 1; i < a.end; i++) {
      const r = messages[i] as Record<string, unknown> | null;
      if (typeof r !== "object" || r === null) continue;
      if (r.role === "assistant" && Array.isArray(r.content)) {
        for (const b of r.content as unknown[]) if (isObject(b) && b.type === "toolCall" && typeof b.id === "string") ids.add(b.id);
      } else if (r.role === "toolResult" && typeof r.toolCallId === "string" && Array.isArray(r.content)) ids.add(r.toolCallId);
    }
  }
  return ids;
}

export function chainRangePrune(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  const cc = ctx.settings.chainCompression;
  const { state } = ctx;
  if (!cc || cc.enabled === false || state.chains.length === 0) return messages;
  // Boundaries were resolved by the first pass over phase 1's input: phases 1 and 2 replace tool
  // results and assistants in place with copies of the same role and timestamp, so they hold here.
  const scan = ctx.chainScan;
  if (!scan) return messages;
  const { pos, count, summaryAt, kind, callAt, callCount, callIds } = scan;
  const chains = state.chains;
  let resolvedCount = 0;
  for (let order = 0; order < chains.length; order++) {
    if (!(order in chains)) continue; // as forEach: holes are skipped
    const entry = chains[order]!;
    const ok = entry.finalAssistantTimestamp !== null && entry.finalAssistantTimestamp !== undefined &&
      count[2 * order] === 1 && count[2 * order + 1] === 1 && pos[2 * order]! < pos[2 * order + 1]!;
    if (!ok) { report(ctx, unresolvedFor(entry)); continue; }
    let r = rangePool[resolvedCount];
    if (!r) { r = { entry, start: 0, end: 0, order: 0 }; rangePool.push(r); }
    r.entry = entry;
    r.start = pos[2 * order]!;
    r.end = pos[2 * order + 1]!;
    r.order = order;
    resolvedBuffer[resolvedCount++] = r;
  }
  if (resolvedCount === 0) return messages;

  // CAP-RENDER-11: earliest start first. Accepted spans are disjoint and in order, so a later
  // start can only be claimed by, or lie inside, the last accepted span.
  // (usually already in that order: entries are kept in the order their chains occurred; sorting a
  // sorted list under this total order is the identity, so it is skipped then)
  const resolved = inStartOrder(resolvedBuffer, resolvedCount) ? resolvedBuffer : resolvedBuffer.slice(0, resolvedCount).sort(byStart);
  let acceptedCount = 0;
  for (let k = 0; k < resolvedCount; k++) {
    const r = resolved[k]!;
    const last = acceptedCount > 0 ? acceptedBuffer[acceptedCount - 1] : undefined;
    if (last && last.start === r.start) { report(ctx, overlapDiagnostic(r.entry.blockId, `startIndex=${r.start} already claimed by ${last.entry.blockId}`)); continue; }
    if (last && r.start < last.end) { report(ctx, overlapDiagnostic(r.entry.blockId, `starts inside ${last.entry.blockId}`)); continue; }
    acceptedBuffer[acceptedCount++] = r;
  }
  ctx.stats.chainsApplied += acceptedCount;

  const cache = chainCache(state);
  const n = messages.length;
  /** per position: DROPPED, REPLACED (final assistant stripped), INSERT_AFTER (the synthetic follows) */
  if (dropBuffer.length < n) dropBuffer = new Uint8Array(Math.max(n, 2 * dropBuffer.length));
  // filled densely up to n (a write far past the end of a short array would make it a sparse dictionary)
  while (insertBuffer.length < n) { insertBuffer.push(undefined); replaceBuffer.push(undefined); }
  const drop = dropBuffer;
  drop.fill(0, 0, n);
  droppedCount = 0;
  droppedInOrder = true;
  let anyDropped = false;
  const strip = cc.stripFinalAssistantThinking !== false;
  let changed = false;

  for (let k = 0; k < acceptedCount; k++) {
    const a = acceptedBuffer[k]!;
    const { entry } = a;
    const info = entryInfo(cache, entry);
    // CAP-RENDER-13 bookkeeping: the walk only checks that its ids are the sequence last counted for
    // this entry (countRecorded runs again when they are not).
    const seq = info.seq;
    let q = 0;
    let same = true;
    const anyProtected = info.protectedIds.size > 0;
    // One role dispatch per message; unreadable entries (see message-shape.ts) are left in place.
    let sources: Record<string, unknown>[] | undefined;
    let present = false;
    for (let i = a.start + 1; i < a.end; i++) {
      const kd = kind[i];
      if (kd === K_SKIP) continue;
      const r = messages[i] as Record<string, unknown>;
      if (kd === K_ASSISTANT) {
        const to = callAt[i]! + callCount[i]!;
        if (to > callAt[i]!) anyDropped = true;
        for (let j = callAt[i]!; j < to; j++) {
          if (same) { if (q < seq.length && seq[q] === callIds[j]) q++; else same = false; }
        }
      } else if (kd === K_RESULT) {
        const id = r.toolCallId as string;
        anyDropped = true;
        if (same) { if (q < seq.length && seq[q] === id) q++; else same = false; }
        const ts = r.timestamp;
        if (typeof ts === "number" && Number.isFinite(ts)) noteDropped(ts, id);
        if (anyProtected && info.protectedIds.has(id)) (sources ??= []).push(r);
      } else if (kd === K_USER) {
        if (r.role === "user" && firstTextPart(r)?.startsWith(info.tag)) present = true;
        continue;
      }
      // K_SUMMARY falls through: dropped
      drop[i] = DROPPED;
      changed = true;
    }
    if (!present) {
      insertBuffer[a.start] = synthetic(state, cache, entry, sources ?? NO_SOURCES);
      drop[a.start]! |= INSERT_AFTER;
      changed = true;
      // CAP-RENDER-13, informational: the range always wins. Skipped on already-compressed output,
      // where the recorded ids are legitimately gone.
      if (!same || q !== seq.length) countRecorded(a, scan, messages, info);
      if (info.seqUnrecorded || info.seqRecordedSeen !== info.recorded.size) {
        report(ctx, rangeMismatchDiagnostic(entry.blockId, info.recorded.size, info.seqRecordedSeen + (info.seqUnrecorded ? distinctUnrecorded(messages, a, info.recorded) : 0)));
      }
    }
    if (strip) {
      const final = messages[a.end];
      const s = withoutThinking(final);
      if (s !== final) { replaceBuffer[a.end] = s; drop[a.end]! |= REPLACED; changed = true; }
    }
  }

  // CAP-RENDER-15: per-batch summaries anywhere in the array whose refs this pass dropped.
  if (anyDropped) {
    // refs with a timestamp match dropped occurrences exactly; legacy refs match dropped bare ids
    let bare: Set<string> | undefined;
    let byTs: Map<number, string[]> | undefined;
    const timed = (ts: number, id: string) => {
      if (droppedInOrder) return droppedSortedHas(ts, id);
      // results out of timestamp order (not how a host writes them): an index, once
      if (!byTs) {
        byTs = new Map();
        for (let k = 0; k < droppedCount; k++) { const t = droppedTs[k]!; const l = byTs.get(t); if (l) l.push(droppedId[k]!); else byTs.set(t, [droppedId[k]!]); }
      }
      return byTs.get(ts)?.includes(id) ?? false;
    };
    const bareHit = (id: string) => (bare ??= droppedIds(messages, acceptedBuffer.slice(0, acceptedCount))).has(id);
    for (let k = 0; k < summaryAt.length; k++) {
      const i = summaryAt[k]!;
      if (drop[i]! & DROPPED) continue;
      if (anyRefCovered(messages[i] as { details?: unknown }, timed, bareHit)) { drop[i]! |= DROPPED; changed = true; }
    }
  }
  droppedId.fill("", 0, droppedCount);
  if (!changed) return messages;

  // the output's length first, so it is allocated once at its size (no growth copies)
  let size = n;
  for (let i = 0; i < n; i++) {
    const f = drop[i]!;
    if (f === 0) continue;
    if (f & DROPPED) size--;
    if (f & INSERT_AFTER) size++;
  }
  const out: unknown[] = new Array(size);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const f = drop[i]!;
    if (f === 0) { out[o++] = messages[i]; continue; }
    if (!(f & DROPPED)) out[o++] = f & REPLACED ? replaceBuffer[i] : messages[i];
    if (f & INSERT_AFTER) out[o++] = insertBuffer[i];
    if (f & REPLACED) replaceBuffer[i] = undefined;
    if (f & INSERT_AFTER) insertBuffer[i] = undefined;
  }
  return out;
}

/**
 * Recorded ids seen in one range (each counted once, via the walk stamp: no per-render set) and
 * whether any id there is unrecorded; kept on the entry's info with the id sequence it was taken over.
 */
function countRecorded(a: Accepted, scan: ChainScan, messages: readonly unknown[], info: EntryInfo): void {
  const { kind, callAt, callCount, callIds } = scan;
  const stamp = ++walkStamp;
  const seq: string[] = [];
  let recordedSeen = 0;
  let unrecorded = false;
  const count = (id: string) => {
    seq.push(id);
    const s = info.recorded.get(id);
    if (s === undefined) unrecorded = true;
    else if (s !== stamp) { info.recorded.set(id, stamp); recordedSeen++; }
  };
  for (let i = a.start + 1; i < a.end; i++) {
    const kd = kind[i];
    if (kd === K_ASSISTANT) { const to = callAt[i]! + callCount[i]!; for (let j = callAt[i]!; j < to; j++) count(callIds[j]!); }
    else if (kd === K_RESULT) count((messages[i] as Record<string, unknown>).toolCallId as string);
  }
  info.seq = seq;
  info.seqRecordedSeen = recordedSeen;
  info.seqUnrecorded = unrecorded;
}

/** Distinct unrecorded ids in one range (only for the mismatch diagnostic's count). */
function distinctUnrecorded(messages: readonly unknown[], a: Accepted, recorded: ReadonlyMap<string, number>): number {
  const ids = droppedIds(messages, [a]);
  let n = 0;
  for (const id of ids) if (!recorded.has(id)) n++;
  return n;
}
