/**
 * Render sizes without serializing the whole array on every render (CAP-RENDER-2 reports
 * `JSON.stringify(array).length`). An array's JSON is `[` + element JSON joined by `,` + `]`, so its
 * length is 2 + (n-1) + Σ element lengths, and element lengths are memoized.
 *
 * The memo cannot rely on object identity: pi structuredClones the whole message array before every
 * `context` event, so each render sees fresh objects. It is keyed instead by a fingerprint of what
 * identifies a message in an append-only session: role, timestamp, tool-call id, and the shape of its
 * content (per part: type, every character of short strings, length and 16 sampled characters of long
 * ones), hashed twice into 32-bit numbers and filed under the timestamp. The caller scopes the memo
 * (pruneMessages keeps one per state object). Identity is still cached too (WeakMap), so the output
 * array, which shares most objects with the input, costs one lookup per message. Messages without a
 * numeric timestamp are measured by identity only.
 *
 * Exactness: the length is exact unless two different messages in one memo share the timestamp and
 * both hashes while differing outside the hashed sample; the host never writes such a pair (and
 * Condense's own stubs differ from their originals in the hashed text).
 */
import { isObject } from "../messages.ts";

interface MemoEntry { h1: number; h2: number; chars: number }
/** timestamp -> the messages seen with that timestamp (almost always one). */
export type SizeMemo = Map<number, MemoEntry[]>;

const charsByObject = new WeakMap<object, number>();

export function createSizeMemo(): SizeMemo {
  return new Map();
}

// Two independent 32-bit mixes; a false match needs both to collide for messages sharing a timestamp.
let h1 = 0;
let h2 = 0;
function mix(x: number): void {
  h1 = Math.imul(h1 ^ x, 0x01000193);
  h2 = (Math.imul(h2, 31) + x) | 0;
}
function mixString(s: string): void {
  const n = s.length;
  mix(n);
  if (n <= 64) for (let i = 0; i < n; i++) mix(s.charCodeAt(i));
  else for (let k = 0; k < 16; k++) mix(s.charCodeAt(Math.floor((k * (n - 1)) / 15)));
}
function mixPart(p: unknown): void {
  if (!isObject(p)) { mix(-1); return; }
  if (typeof p.type === "string") mixString(p.type);
  if (typeof p.text === "string") mixString(p.text);
  if (typeof p.thinking === "string") mixString(p.thinking);
  if (typeof p.thinkingSignature === "string") mixString(p.thinkingSignature);
  if (typeof p.data === "string") mixString(p.data);
  if (typeof p.id === "string") {
    mixString(p.id);
    if (typeof p.name === "string") mixString(p.name);
    // Error purge rewrites a call's arguments in a copy that keeps everything else.
    const a = p.arguments ?? p.input ?? p.args;
    mix(isObject(a) && typeof a._purged === "string" ? 1 : 0);
  }
}

/** Fingerprint hashes of a message (see the module note); false when it has no numeric timestamp. */
function fingerprint(m: Record<string, unknown>): boolean {
  if (typeof m.timestamp !== "number" || typeof m.role !== "string") return false;
  h1 = 0x811c9dc5 | 0;
  h2 = 17;
  mixString(m.role);
  if (typeof m.toolCallId === "string") mixString(m.toolCallId);
  if (typeof m.toolName === "string") mixString(m.toolName);
  mix(m.isError === true ? 1 : 0);
  const c = m.content;
  if (typeof c === "string") mixString(c);
  else if (Array.isArray(c)) { mix(c.length); for (const p of c) mixPart(p); }
  else return false;
  return true;
}

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown, memo?: SizeMemo): number {
  if (typeof m !== "object" || m === null) return serializedLength(m);
  let n = charsByObject.get(m);
  if (n !== undefined) return n;
  if (memo && !Array.isArray(m) && fingerprint(m as Record<string, unknown>)) {
    const ts = (m as { timestamp: number }).timestamp;
    let list = memo.get(ts);
    const hit = list?.find((e) => e.h1 === h1 && e.h2 === h2);
    if (hit) n = hit.chars;
    else {
      const entry = { h1, h2, chars: serializedLength(m) };
      if (list) list.push(entry); else memo.set(ts, (list = [entry]));
      n = entry.chars;
    }
  } else n = serializedLength(m);
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
