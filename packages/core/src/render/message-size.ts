/**
 * Render sizes (CAP-RENDER-2 reports `JSON.stringify(array).length` of input and output) without
 * serializing the whole array on every render. An array's JSON is `[` + element JSON joined by `,` +
 * `]`, so its length is 2 + (n-1) + the sum of element lengths, and element lengths are memoized.
 *
 * The memo cannot rely on object identity alone: pi clones the whole message array before every
 * `context` event, so each render sees fresh objects. It is keyed instead by a fingerprint of what
 * identifies a message in an append-only session: role, timestamp, its position among adjacent
 * messages sharing that timestamp, custom type, tool-call id, tool name, error flag, the number of
 * content parts, and the first part (its type and main string: every string as its length, first
 * eight and last code unit; a tool call as id, name and whether its arguments are the purged
 * placeholder); messages of other roles without `content` (bashExecution, ...) mix their top-level
 * scalar fields. The fingerprint reads only a message's head: reading every part of thousands of
 * messages would cost more than the render it measures.
 *
 * Exactness: the length is exact unless two different messages measured with one memo share the
 * timestamp, the run position, the role, the fields above and both hashes while their JSON lengths
 * differ, i.e. they differ only inside the first part's main string (same length, same ends), in a
 * later content part, or in a field the fingerprint does not read (`details`, `usage`, ...). A host
 * never writes such a pair: a message is identified by its timestamp in an append-only session.
 * Condense's own replacements are measured by identity (the render names them), not through the memo.
 *
 * A memo belongs to its caller (the render memo keeps one per state version; replay keeps its own):
 * nothing here outlives the objects the caller holds.
 */
import { timestampOf } from "./message-shape.ts";

interface MemoEntry {
  h1: number;
  h2: number;
  chars: number;
}

/** The `byObject` value of a message Condense built that no render has measured yet. */
const UNMEASURED = -1;

export interface SizeMemo {
  /** timestamp -> the messages seen with that timestamp (almost always one). */
  readonly byTs: Map<number, MemoEntry[]>;
  /**
   * Messages measured by identity: those without a numeric timestamp, first sightings, and the
   * messages Condense built (`producedSize`), which hold `UNMEASURED` until first measured. One
   * lookup tells a render both whether a message is known and whether it must skip the fingerprint.
   */
  readonly byObject: WeakMap<object, number>;
  /** Per input position, the fingerprint met there last and its length (a shortcut to `byTs`). */
  positions: { ts: Float64Array; h1: Int32Array; h2: Int32Array; chars: Float64Array };
  /** The two running hashes of the fingerprint being taken. */
  readonly h: Int32Array;
}

export function createSizeMemo(): SizeMemo {
  return {
    byTs: new Map(),
    byObject: new WeakMap(),
    positions: emptyPositions(0),
    h: new Int32Array(2),
  };
}

function emptyPositions(n: number): SizeMemo["positions"] {
  return { ts: new Float64Array(n), h1: new Int32Array(n), h2: new Int32Array(n), chars: new Float64Array(n).fill(-1) };
}

/** Grows the per-position shortcut to n positions, keeping what it held (once before a pass, `sizeInPass`). */
export function coverInput(memo: SizeMemo, n: number): void {
  const p = memo.positions;
  if (p.ts.length >= n) return;
  const q = emptyPositions(Math.max(n, 2 * p.ts.length, 256));
  q.ts.set(p.ts);
  q.h1.set(p.h1);
  q.h2.set(p.h2);
  q.chars.set(p.chars);
  memo.positions = q;
}

// Two independent 32-bit mixes; a false match needs both to collide for messages sharing a timestamp.
/** Length, the first eight and the last code unit. */
function mixString(h: Int32Array, s: string): void {
  const n = s.length;
  let a = Math.imul(h[0]! ^ n, 0x01000193);
  let b = (Math.imul(h[1]!, 31) + n) | 0;
  const head = Math.min(n, 8);
  for (let k = 0; k < head; k++) {
    const c = s.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = (Math.imul(b, 31) + c) | 0;
  }
  if (n > 8) {
    const c = s.charCodeAt(n - 1);
    a = Math.imul(a ^ c, 0x01000193);
    b = (Math.imul(b, 31) + c) | 0;
  }
  h[0] = a;
  h[1] = b;
}
function mixNumber(h: Int32Array, x: number): void {
  h[0] = Math.imul(h[0]! ^ x, 0x01000193);
  h[1] = (Math.imul(h[1]!, 31) + x) | 0;
}
/** Only the fields a part's type carries are read. */
function mixPart(h: Int32Array, p: unknown): void {
  if (typeof p !== "object" || p === null) {
    mixNumber(h, -1);
    return;
  }
  const q = p as Record<string, unknown>;
  const t = q.type;
  if (typeof t !== "string") {
    mixAnyPart(h, q);
    return;
  }
  mixString(h, t);
  switch (t) {
    case "text": {
      const x = q.text;
      if (typeof x === "string") mixString(h, x);
      else mixNumber(h, -2);
      return;
    }
    case "toolCall":
      mixCall(h, q);
      return;
    case "thinking": {
      const x = q.thinking;
      if (typeof x === "string") mixString(h, x);
      else mixNumber(h, -2);
      const g = q.thinkingSignature;
      if (typeof g === "string") mixString(h, g);
      return;
    }
    case "image": {
      const x = q.data;
      if (typeof x === "string") mixString(h, x);
      else mixNumber(h, -2);
      return;
    }
    default:
      mixAnyPart(h, q);
  }
}
function mixAnyPart(h: Int32Array, q: Record<string, unknown>): void {
  if (typeof q.text === "string") mixString(h, q.text);
  if (typeof q.thinking === "string") mixString(h, q.thinking);
  if (typeof q.thinkingSignature === "string") mixString(h, q.thinkingSignature);
  if (typeof q.data === "string") mixString(h, q.data);
  if (typeof q.id === "string") mixCall(h, q);
}
function mixCall(h: Int32Array, q: Record<string, unknown>): void {
  if (typeof q.id === "string") mixString(h, q.id);
  if (typeof q.name === "string") mixString(h, q.name);
  // Error purge rewrites a call's arguments in a copy that keeps everything else.
  const a = (q.arguments ?? q.input ?? q.args) as Record<string, unknown> | null | undefined;
  mixNumber(h, typeof a === "object" && a !== null && typeof a._purged === "string" ? 1 : 0);
}

/** Top-level fields of a message of another role: names, strings, and integers (others as their kind). */
function mixFields(h: Int32Array, m: Record<string, unknown>): void {
  for (const k in m) {
    mixString(h, k);
    const v = m[k];
    if (typeof v === "string") mixString(h, v);
    else if (typeof v === "number") mixNumber(h, Number.isInteger(v) ? v | 0 : -4);
    else if (typeof v === "boolean") mixNumber(h, v ? 1 : 0);
    else mixNumber(h, v === null ? -5 : -6);
  }
}

/**
 * The fingerprint of a message into `h` (see the module note); false without a numeric timestamp.
 * `run` is the message's position among adjacent messages sharing its timestamp (summaries delivered
 * together carry one timestamp).
 */
function fingerprint(h: Int32Array, m: Record<string, unknown>, run: number): boolean {
  if (typeof m.timestamp !== "number") return false;
  const role = m.role;
  if (typeof role !== "string") return false;
  const c = m.content;
  h[0] = 0x811c9dc5 | 0;
  h[1] = 17;
  mixNumber(h, run);
  mixString(h, role);
  switch (role) {
    case "user":
    case "assistant":
      break;
    case "toolResult":
      if (typeof m.toolCallId === "string") mixString(h, m.toolCallId);
      if (typeof m.toolName === "string") mixString(h, m.toolName);
      mixNumber(h, m.isError === true ? 1 : 0);
      break;
    case "custom":
      if (typeof m.customType === "string") mixString(h, m.customType);
      break;
    default:
      // bashExecution, branchSummary, compactionSummary, future roles: often no `content` at all.
      if (c === undefined) {
        mixFields(h, m);
        return true;
      }
      if (typeof m.customType === "string") mixString(h, m.customType);
      if (typeof m.toolCallId === "string") mixString(h, m.toolCallId);
      if (typeof m.toolName === "string") mixString(h, m.toolName);
      mixNumber(h, m.isError === true ? 1 : 0);
  }
  if (typeof c === "string") mixString(h, c);
  else if (Array.isArray(c)) {
    mixNumber(h, c.length);
    if (c.length > 0) mixPart(h, c[0]);
  } else return false;
  return true;
}

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown, memo?: SizeMemo, run = 0): number {
  return charsAt(m, memo, run, -1);
}

/** `messageChars`, with `at` the element's position in the input (-1: none) for the position shortcut. */
function charsAt(m: unknown, memo: SizeMemo | undefined, run: number, at: number): number {
  if (typeof m !== "object" || m === null) return serializedLength(m);
  if (!memo) return serializedLength(m);
  const known = memo.byObject.get(m);
  if (known !== undefined && known !== UNMEASURED) return known;
  if (known === UNMEASURED || Array.isArray(m) || !fingerprint(memo.h, m as Record<string, unknown>, run)) {
    const n = serializedLength(m);
    memo.byObject.set(m, n);
    return n;
  }
  const ts = (m as { timestamp: number }).timestamp;
  const h1 = memo.h[0]!;
  const h2 = memo.h[1]!;
  const p = memo.positions;
  if (at >= 0 && at < p.ts.length && p.ts[at] === ts && p.h1[at] === h1 && p.h2[at] === h2 && p.chars[at]! >= 0)
    return p.chars[at]!;
  const list = memo.byTs.get(ts);
  let chars = -1;
  if (list)
    for (const e of list)
      if (e.h1 === h1 && e.h2 === h2) {
        chars = e.chars;
        break;
      }
  if (chars < 0) {
    // A first sighting is also remembered by identity, for callers that hand over the same objects.
    chars = serializedLength(m);
    const entry = { h1, h2, chars };
    if (list) list.push(entry);
    else memo.byTs.set(ts, [entry]);
    memo.byObject.set(m, chars);
  }
  if (at >= 0 && at < p.ts.length) {
    p.ts[at] = ts;
    p.h1[at] = h1;
    p.h2[at] = h2;
    p.chars[at] = chars;
  }
  return chars;
}

/**
 * Registers a message Condense built (a stub, a purged or stripped copy, a synthetic) when it is
 * built: a copy can share its original's fingerprint, so it is measured by identity, never through
 * the fingerprint, and only when a render measures (a render with `measure: false` serializes none).
 */
export function producedSize(memo: SizeMemo, o: object): void {
  if (!memo.byObject.has(o)) memo.byObject.set(o, UNMEASURED);
}

function serializedLength(x: unknown): number {
  try {
    const s = JSON.stringify(x);
    // undefined, functions, symbols and toJSON()->undefined serialize as `null` inside an array.
    return s === undefined ? 4 : s.length;
  } catch {
    // Cycles and BigInt cannot be serialized at all (so neither can the array); count nothing.
    return 0;
  }
}

/**
 * The size of `messages[at]` in a pass that measures one array in order (the render's reading pass,
 * `elementSizes`): `run` is the element's position among adjacent elements sharing its numeric
 * timestamp. The pass calls `coverInput(memo, n)` once before the first element.
 */
export function sizeInPass(memo: SizeMemo, m: unknown, run: number, at: number): number {
  return charsAt(m, memo, run, at);
}

/** Per-element sizes of an array. */
function elementSizes(messages: readonly unknown[], memo: SizeMemo | undefined): Float64Array {
  const n = messages.length;
  const sizes = new Float64Array(n);
  if (!memo) {
    for (let i = 0; i < n; i++) sizes[i] = serializedLength(messages[i]);
    return sizes;
  }
  coverInput(memo, n);
  let prevTs = Number.NaN;
  let run = 0;
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    const ts = timestampOf(m);
    run = ts === prevTs ? run + 1 : 0;
    prevTs = ts;
    sizes[i] = sizeInPass(memo, m, run, i);
  }
  return sizes;
}

const framing = (n: number) => (n === 0 ? 2 : n + 1);

/** Equals `JSON.stringify(messages).length` for every serializable array (see the exactness note). */
export function arrayChars(messages: readonly unknown[], memo?: SizeMemo): number {
  let total = framing(messages.length);
  for (const c of elementSizes(messages, memo)) total += c;
  return total;
}

/**
 * `JSON.stringify(input).length` and `JSON.stringify(output).length` for a render, whose output keeps
 * the input's order with some elements dropped, replaced or inserted. Output elements that are input
 * elements (in order) take the input's sizes; the rest (Condense's replacements, registered with
 * `producedSize`, or anything else) are measured through the memo, so any output is measured exactly.
 * `inputSizes`, when given, are the input's sizes already taken (with `sizeInPass` and this memo).
 */
export function renderChars(
  input: readonly unknown[],
  output: readonly unknown[],
  memo?: SizeMemo,
  inputSizes?: Float64Array,
): { before: number; after: number } {
  const n = input.length;
  const sizes = inputSizes ?? elementSizes(input, memo);
  let before = framing(n);
  for (let i = 0; i < n; i++) before += sizes[i]!;
  let after = framing(output.length);
  let j = 0;
  for (const o of output) {
    if (j < n && input[j] === o) {
      after += sizes[j]!;
      j++;
      continue;
    }
    // Condense's replacements, and objects seen before, are measured by identity: no search needed.
    const known = typeof o === "object" && o !== null && memo?.byObject.has(o) ? messageChars(o, memo) : undefined;
    if (known !== undefined) {
      after += known;
      continue;
    }
    // Otherwise an input element after a dropped stretch: find it, and go on from there.
    let f = j + 1;
    while (f < n && input[f] !== o) f++;
    if (f < n) {
      after += sizes[f]!;
      j = f + 1;
    } else after += messageChars(o, memo);
  }
  return { before, after };
}
