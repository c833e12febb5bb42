/**
 * Render sizes without serializing the whole array on every render (CAP-RENDER-2 reports
 * `JSON.stringify(array).length`). An array's JSON is `[` + element JSON joined by `,` + `]`, so its
 * length is 2 + (n-1) + Σ element lengths, and element lengths are memoized.
 *
 * The memo cannot rely on object identity: pi structuredClones the whole message array before every
 * `context` event, so each render sees fresh objects. It is keyed instead by a fingerprint of what
 * identifies a message in an append-only session: role, custom type, timestamp, its position among
 * adjacent messages sharing that timestamp, tool-call id, and the shape of its content (every string as
 * its length, its first eight and its last code unit), hashed twice into 32-bit numbers and filed under
 * the timestamp. The sample is deliberately the part of a string that
 * shares a cache line with its header (plus the last code unit): on a fresh clone of thousands of
 * messages the render is bound by memory reads, and reading further into long tool outputs costs a
 * cache miss per sampled character. The caller scopes the memo (pruneMessages keeps one per state
 * object). The first object measured for a fingerprint is also cached by identity (WeakMap), so
 * callers that hand over the same objects every render pay one lookup per message; messages without a
 * numeric timestamp are cached by identity only.
 *
 * `renderChars` measures a render's input and output together: the output is the input with some
 * elements dropped, some replaced in place and some inserted, all in input order, so every output
 * element that is an input element takes its size from the input pass (pointer comparisons only), and
 * the replacements Condense built (`markProduced`) are measured once by identity.
 *
 * Exactness: the length is exact unless two different messages in one memo share the timestamp, the
 * position in their same-timestamp run, the role, every string length and sampled code unit, and both
 * hashes, while their JSON lengths differ
 * (which needs a different count of characters JSON escapes in the unsampled middle of a string, or a
 * difference in a field the fingerprint does not read, such as `details`). The host never writes such
 * a pair: timestamps identify messages in an append-only session, and Condense's own replacements
 * (stubs, purged or stripped copies, chain synthetics) are measured by identity, and differ from their
 * originals in the fingerprint anyway (stub text, `_purged` flag, content length).
 */

interface MemoEntry { h1: number; h2: number; chars: number }
/** timestamp -> the messages seen with that timestamp (almost always one). */
export type SizeMemo = Map<number, MemoEntry[]>;

const charsByObject = new WeakMap<object, number>();

export function createSizeMemo(): SizeMemo {
  return new Map();
}

// Two independent 32-bit mixes; a false match needs both to collide for messages sharing a timestamp.
// Module-level registers (not shared state between calls: every fingerprint resets them first).
let h1 = 0;
let h2 = 0;
/** Length, the first eight and the last code unit: what lies in the string's first cache line, plus one. */
function mixString(s: string): void {
  const n = s.length;
  let a = Math.imul(h1 ^ n, 0x01000193);
  let b = (Math.imul(h2, 31) + n) | 0;
  const head = n < 8 ? n : 8;
  for (let k = 0; k < head; k++) { const c = s.charCodeAt(k); a = Math.imul(a ^ c, 0x01000193); b = (Math.imul(b, 31) + c) | 0; }
  if (n > 8) { const c = s.charCodeAt(n - 1); a = Math.imul(a ^ c, 0x01000193); b = (Math.imul(b, 31) + c) | 0; }
  h1 = a;
  h2 = b;
}
function mixNumber(x: number): void {
  h1 = Math.imul(h1 ^ x, 0x01000193);
  h2 = (Math.imul(h2, 31) + x) | 0;
}
/**
 * Parts and messages are read per type: on a fresh clone every property load is megamorphic, and a
 * load of a property the object lacks costs a full lookup, so only the fields a type carries are read.
 */
function mixPart(p: unknown): void {
  if (typeof p !== "object" || p === null) { mixNumber(-1); return; }
  const q = p as Record<string, unknown>;
  const t = q.type;
  if (typeof t !== "string") { mixAnyPart(q); return; }
  mixString(t);
  switch (t) {
    case "text": { const x = q.text; if (typeof x === "string") mixString(x); else mixNumber(-2); return; }
    case "toolCall": mixCall(q); return;
    case "thinking": {
      const x = q.thinking; if (typeof x === "string") mixString(x); else mixNumber(-2);
      const g = q.thinkingSignature; if (typeof g === "string") mixString(g);
      return;
    }
    case "image": { const x = q.data; if (typeof x === "string") mixString(x); else mixNumber(-2); return; }
    default: mixAnyPart(q);
  }
}
function mixAnyPart(q: Record<string, unknown>): void {
  if (typeof q.text === "string") mixString(q.text);
  if (typeof q.thinking === "string") mixString(q.thinking);
  if (typeof q.thinkingSignature === "string") mixString(q.thinkingSignature);
  if (typeof q.data === "string") mixString(q.data);
  if (typeof q.id === "string") mixCall(q);
}
function mixCall(q: Record<string, unknown>): void {
  if (typeof q.id === "string") mixString(q.id);
  if (typeof q.name === "string") mixString(q.name);
  // Error purge rewrites a call's arguments in a copy that keeps everything else.
  const a = (q.arguments ?? q.input ?? q.args) as Record<string, unknown> | null | undefined;
  mixNumber(typeof a === "object" && a !== null && typeof a._purged === "string" ? 1 : 0);
}

/**
 * Fingerprint hashes of a message into h1/h2 (see the module note); false without a numeric timestamp.
 * `run` is the message's position among adjacent messages sharing its timestamp (several summaries
 * delivered together carry one timestamp and differ mostly past the sample).
 */
function fingerprint(m: Record<string, unknown>, run: number): boolean {
  if (typeof m.timestamp !== "number") return false;
  const role = m.role;
  if (typeof role !== "string") return false;
  const c = m.content;
  h1 = 0x811c9dc5 | 0;
  h2 = 17;
  mixNumber(run);
  mixString(role);
  switch (role) {
    case "user":
    case "assistant":
      break;
    case "toolResult":
      if (typeof m.toolCallId === "string") mixString(m.toolCallId);
      if (typeof m.toolName === "string") mixString(m.toolName);
      mixNumber(m.isError === true ? 1 : 0);
      break;
    case "custom":
      if (typeof m.customType === "string") mixString(m.customType);
      break;
    default:
      if (typeof m.customType === "string") mixString(m.customType);
      if (typeof m.toolCallId === "string") mixString(m.toolCallId);
      if (typeof m.toolName === "string") mixString(m.toolName);
      mixNumber(m.isError === true ? 1 : 0);
  }
  if (typeof c === "string") mixString(c);
  else if (Array.isArray(c)) { mixNumber(c.length); for (let i = 0; i < c.length; i++) mixPart(c[i]); }
  else return false;
  return true;
}

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown, memo?: SizeMemo, run = 0): number {
  if (typeof m !== "object" || m === null) return serializedLength(m);
  const known = charsByObject.get(m);
  if (known !== undefined) return known;
  if (memo && !Array.isArray(m) && fingerprint(m as Record<string, unknown>, run)) {
    const ts = (m as { timestamp: number }).timestamp;
    const list = memo.get(ts);
    // A fingerprint hit is a clone of a message already measured: no identity entry, since with a
    // fresh clone every render the WeakMap inserts (and their GC cost) would outweigh re-hashing.
    if (list) for (const e of list) if (e.h1 === h1 && e.h2 === h2) return e.chars;
    const entry = { h1, h2, chars: serializedLength(m) };
    if (list) list.push(entry); else memo.set(ts, [entry]);
    charsByObject.set(m, entry.chars);
    return entry.chars;
  }
  const n = serializedLength(m);
  charsByObject.set(m, n);
  return n;
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

/** Equals `JSON.stringify(messages).length` for every serializable array (see the exactness note). */
export function arrayChars(messages: readonly unknown[], memo?: SizeMemo): number {
  const n = messages.length;
  let total = n === 0 ? 2 : n + 1;
  let prevTs: unknown;
  let run = 0;
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    const ts = typeof m === "object" && m !== null ? (m as { timestamp?: unknown }).timestamp : undefined;
    run = ts !== undefined && ts === prevTs ? run + 1 : 0;
    prevTs = ts;
    total += messageChars(m, memo, run);
  }
  return total;
}

/** Objects Condense built during a render (stubs, purged and stripped copies, chain synthetics). */
const produced = new WeakSet<object>();
export function markProduced<T extends object>(o: T): T {
  produced.add(o);
  return o;
}

/** Per-input-position sizes of the current measurement (reused: a render allocates no size array). */
let scratch = new Float64Array(1024);

/**
 * `JSON.stringify(input).length` and `JSON.stringify(output).length` for a render's output, which keeps
 * the input's order (see the module note). Output elements that are neither input elements in order
 * nor marked as produced fall back to the memo, so any output is measured exactly.
 */
export function renderChars(input: readonly unknown[], output: readonly unknown[], memo?: SizeMemo): { before: number; after: number } {
  const n = input.length;
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  const sizes = scratch;
  let before = n === 0 ? 2 : n + 1;
  let prevTs: unknown;
  let run = 0;
  for (let i = 0; i < n; i++) {
    const x = input[i];
    const ts = typeof x === "object" && x !== null ? (x as { timestamp?: unknown }).timestamp : undefined;
    run = ts !== undefined && ts === prevTs ? run + 1 : 0;
    prevTs = ts;
    const c = messageChars(x, memo, run);
    sizes[i] = c;
    before += c;
  }
  const m = output.length;
  let after = m === 0 ? 2 : m + 1;
  let j = 0;
  for (let k = 0; k < m; k++) {
    const o = output[k];
    if (j < n && input[j] === o) { after += sizes[j]!; j++; continue; }
    if (typeof o === "object" && o !== null && produced.has(o)) { after += messageChars(o); continue; }
    let f = j + 1;
    while (f < n && input[f] !== o) f++;
    if (f < n) { after += sizes[f]!; j = f + 1; } else after += messageChars(o, memo);
  }
  return { before, after };
}
