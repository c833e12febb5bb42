/**
 * Render sizes without serializing the whole array on every render (CAP-RENDER-2 reports
 * `JSON.stringify(array).length`). An array's JSON is `[` + element JSON joined by `,` + `]`, so its
 * length is 2 + (n-1) + Σ element lengths, and element lengths are memoized.
 *
 * The memo cannot rely on object identity: pi structuredClones the whole message array before every
 * `context` event, so each render sees fresh objects. It is keyed instead by a fingerprint of what
 * identifies a message in an append-only session: role, timestamp, tool-call id, and the shape of its
 * content (every string as its length and eight sampled characters), hashed twice into 32-bit numbers and filed under the timestamp. The caller scopes the memo
 * (pruneMessages keeps one per state object). The first object measured for a fingerprint is also
 * cached by identity (WeakMap), so callers that hand over the same objects every render pay one
 * lookup per message; messages without a numeric timestamp are cached by identity only.
 *
 * Exactness: the length is exact unless two different messages in one memo share the timestamp and
 * both hashes while differing outside the hashed sample; the host never writes such a pair (and
 * Condense's own stubs differ from their originals in the hashed text).
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
/** Length plus eight evenly spaced code units (first and last included): O(1) per string. */
function mixString(s: string): void {
  const n = s.length;
  let a = Math.imul(h1 ^ n, 0x01000193);
  let b = (Math.imul(h2, 31) + n) | 0;
  if (n > 0) {
    const step = (n - 1) / 7;
    for (let k = 0; k < 8; k++) { const c = s.charCodeAt((k * step) | 0); a = Math.imul(a ^ c, 0x01000193); b = (Math.imul(b, 31) + c) | 0; }
  }
  h1 = a;
  h2 = b;
}
function mixNumber(x: number): void {
  h1 = Math.imul(h1 ^ x, 0x01000193);
  h2 = (Math.imul(h2, 31) + x) | 0;
}
function mixPart(p: unknown): void {
  if (typeof p !== "object" || p === null) { mixNumber(-1); return; }
  const q = p as Record<string, unknown>;
  if (typeof q.type === "string") mixString(q.type);
  if (typeof q.text === "string") mixString(q.text);
  if (typeof q.thinking === "string") mixString(q.thinking);
  if (typeof q.thinkingSignature === "string") mixString(q.thinkingSignature);
  if (typeof q.data === "string") mixString(q.data);
  if (typeof q.id === "string") {
    mixString(q.id);
    if (typeof q.name === "string") mixString(q.name);
    // Error purge rewrites a call's arguments in a copy that keeps everything else.
    const a = (q.arguments ?? q.input ?? q.args) as Record<string, unknown> | null | undefined;
    mixNumber(typeof a === "object" && a !== null && typeof a._purged === "string" ? 1 : 0);
  }
}

/** Fingerprint hashes of a message into h1/h2 (see the module note); false without a numeric timestamp. */
function fingerprint(m: Record<string, unknown>): boolean {
  if (typeof m.timestamp !== "number" || typeof m.role !== "string") return false;
  const c = m.content;
  h1 = 0x811c9dc5 | 0;
  h2 = 17;
  mixString(m.role);
  if (typeof m.toolCallId === "string") mixString(m.toolCallId);
  if (typeof m.toolName === "string") mixString(m.toolName);
  mixNumber(m.isError === true ? 1 : 0);
  if (typeof c === "string") mixString(c);
  else if (Array.isArray(c)) { mixNumber(c.length); for (let i = 0; i < c.length; i++) mixPart(c[i]); }
  else return false;
  return true;
}

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown, memo?: SizeMemo): number {
  if (typeof m !== "object" || m === null) return serializedLength(m);
  const known = charsByObject.get(m);
  if (known !== undefined) return known;
  if (memo && !Array.isArray(m) && fingerprint(m as Record<string, unknown>)) {
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
  for (let i = 0; i < n; i++) total += messageChars(messages[i], memo);
  return total;
}
