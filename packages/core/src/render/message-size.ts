/**
 * Render sizes without serializing the whole array on every render (CAP-RENDER-2 reports
 * `JSON.stringify(array).length`). An array's JSON is `[` + element JSON joined by `,` + `]`, so its
 * length is 2 + (n-1) + Σ element lengths, and element lengths are memoized.
 *
 * The memo cannot rely on object identity: pi structuredClones the whole message array before every
 * `context` event, so each render sees fresh objects. It is keyed instead by a fingerprint of what
 * identifies a message in an append-only session: role, timestamp, its position among adjacent
 * messages sharing that timestamp, custom type, tool-call id, tool name, error flag, the number of
 * content parts, and the first part (its type and main string: every string as its length, first
 * eight and last code unit; a tool call as id, name and whether its arguments are the purged placeholder);
 * messages of other roles without `content` (bashExecution, ...) mix their top-level scalar fields.
 * That is hashed twice into 32-bit numbers and filed under the timestamp. The fingerprint reads only a
 * message's head on purpose: on a fresh clone of thousands of messages the render is bound by memory
 * reads (every part and string is its own heap object, a cache miss each once the array outgrows the
 * cache), and reading every part made the size pass cost more than the whole render at 8x the largest
 * session. The caller scopes the memo (pruneMessages keeps one per state object). The first object
 * measured for a fingerprint is also cached by identity (WeakMap), so callers that hand over the same
 * objects every render pay one lookup per message; messages without a numeric timestamp are cached by
 * identity only.
 *
 * `renderChars` measures a render's input and output together: the output is the input with some
 * elements dropped, some replaced in place and some inserted, all in input order, so every output
 * element that is an input element takes its size from the input pass (pointer comparisons only), and
 * the replacements Condense built (`markProduced`) are measured once by identity. The input pass is
 * the render's own first pass (`sizeInputAt`), so each message's head is read once per render.
 *
 * Exactness: the length is exact unless two different messages measured with one memo share the
 * timestamp, the position in their same-timestamp run, the role, the fields above and both hashes
 * while their JSON lengths differ, i.e. they differ only between the first eight and the last code
 * unit of the first part's main string (same length), in a later content part, or in a field the fingerprint does
 * not read (`details`, `usage`, ...). The host never writes such a pair: a message is identified by its
 * timestamp in an append-only session (distinct messages sharing one are either adjacent, like
 * summaries delivered together, and told apart by run position, or parallel tool results, told apart
 * by tool-call id). Condense's own replacements are measured by identity, not through the memo; a
 * host that fed back a *copy* of rendered output (pi never does) could have a purged assistant copy
 * (it differs from its original only in a later part's arguments) measured at the original's size.
 */

interface MemoEntry { h1: number; h2: number; chars: number }
/** timestamp -> the messages seen with that timestamp (almost always one). */
export type SizeMemo = Map<number, MemoEntry[]>;

const charsByObject = new WeakMap<object, number>();

export function createSizeMemo(): SizeMemo {
  return new Map();
}

// Two independent 32-bit mixes; a false match needs both to collide for messages sharing a timestamp.
// Module-level registers (not shared state between calls: every fingerprint resets them first). They
// live in an Int32Array because a module `let` holding a 32-bit value outside the small-integer range
// is boxed: every mix would allocate a heap number.
const H = new Int32Array(2);
/** Length, the first eight and the last code unit: what lies in the string's first cache line, plus one. */
function mixString(s: string): void {
  const n = s.length;
  let a = Math.imul(H[0]! ^ n, 0x01000193);
  let b = (Math.imul(H[1]!, 31) + n) | 0;
  const head = n < 8 ? n : 8;
  for (let k = 0; k < head; k++) { const c = s.charCodeAt(k); a = Math.imul(a ^ c, 0x01000193); b = (Math.imul(b, 31) + c) | 0; }
  if (n > 8) { const c = s.charCodeAt(n - 1); a = Math.imul(a ^ c, 0x01000193); b = (Math.imul(b, 31) + c) | 0; }
  H[0] = a;
  H[1] = b;
}
function mixNumber(x: number): void {
  H[0] = Math.imul(H[0]! ^ x, 0x01000193);
  H[1] = (Math.imul(H[1]!, 31) + x) | 0;
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

/** Top-level fields of a message of another role: names, strings, and integers (others as their kind). */
function mixFields(m: Record<string, unknown>): void {
  for (const k in m) {
    mixString(k);
    const v = m[k];
    if (typeof v === "string") mixString(v);
    else if (typeof v === "number") mixNumber(Number.isInteger(v) ? v | 0 : -4);
    else if (typeof v === "boolean") mixNumber(v ? 1 : 0);
    else mixNumber(v === null ? -5 : -6);
  }
}

/**
 * Fingerprint hashes of a message into H (see the module note); false without a numeric timestamp.
 * `run` is the message's position among adjacent messages sharing its timestamp (several summaries
 * delivered together carry one timestamp and differ mostly past the sample).
 */
function fingerprint(m: Record<string, unknown>, run: number): boolean {
  if (typeof m.timestamp !== "number") return false;
  const role = m.role;
  if (typeof role !== "string") return false;
  const c = m.content;
  H[0] = 0x811c9dc5 | 0;
  H[1] = 17;
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
      // bashExecution, branchSummary, compactionSummary, future roles: often no `content` at all.
      if (c === undefined) { mixFields(m); return true; }
      if (typeof m.customType === "string") mixString(m.customType);
      if (typeof m.toolCallId === "string") mixString(m.toolCallId);
      if (typeof m.toolName === "string") mixString(m.toolName);
      mixNumber(m.isError === true ? 1 : 0);
  }
  if (typeof c === "string") mixString(c);
  else if (Array.isArray(c)) { mixNumber(c.length); if (c.length > 0) mixPart(c[0]); }
  else return false;
  return true;
}

/**
 * Per memo, the fingerprint met at each input position on the last measurement and its length: a
 * sequential, typed-array shortcut to the entry the memo lookup would return (same timestamp, same
 * two hashes; the memo never holds two entries with both, so the answer is the same), which spares a
 * fresh clone's render the hash-table probes into a memo that is as large as the session.
 */
interface PositionCache { ts: Float64Array; h1: Int32Array; h2: Int32Array; chars: Float64Array }
const positionsByMemo = new WeakMap<SizeMemo, PositionCache>();
function positionCache(memo: SizeMemo, n: number): PositionCache {
  let p = positionsByMemo.get(memo);
  if (!p || p.ts.length < n) {
    const size = Math.max(n, 2 * (p?.ts.length ?? 0), 256);
    const q: PositionCache = { ts: new Float64Array(size), h1: new Int32Array(size), h2: new Int32Array(size), chars: new Float64Array(size).fill(-1) };
    if (p) { q.ts.set(p.ts); q.h1.set(p.h1); q.h2.set(p.h2); q.chars.set(p.chars); }
    positionsByMemo.set(memo, q);
    p = q;
  }
  return p;
}

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown, memo?: SizeMemo, run = 0): number {
  return charsAt(m, memo, run, -1, undefined);
}

/** `messageChars`, with `at` the element's position in the input and `positions` its memo's position cache. */
function charsAt(m: unknown, memo: SizeMemo | undefined, run: number, at: number, positions: PositionCache | undefined): number {
  if (typeof m !== "object" || m === null) return serializedLength(m);
  const known = charsByObject.get(m);
  if (known !== undefined) return known;
  if (memo && !Array.isArray(m) && fingerprint(m as Record<string, unknown>, run)) {
    const ts = (m as { timestamp: number }).timestamp;
    // A fingerprint hit is a clone of a message already measured: no identity entry, since with a
    // fresh clone every render the WeakMap inserts (and their GC cost) would outweigh re-hashing.
    const h1 = H[0]!;
    const h2 = H[1]!;
    if (positions && at >= 0 && positions.ts[at] === ts && positions.h1[at] === h1 && positions.h2[at] === h2) {
      const c = positions.chars[at]!;
      if (c >= 0) return c;
    }
    const list = memo.get(ts);
    let chars = -1;
    if (list) for (let k = 0; k < list.length; k++) { const e = list[k]!; if (e.h1 === h1 && e.h2 === h2) { chars = e.chars; break; } }
    if (chars < 0) {
      const entry = { h1, h2, chars: serializedLength(m) };
      if (list) list.push(entry); else memo.set(ts, [entry]);
      charsByObject.set(m, entry.chars);
      chars = entry.chars;
    }
    if (positions && at >= 0) { positions.ts[at] = ts; positions.h1[at] = h1; positions.h2[at] = h2; positions.chars[at] = chars; }
    return chars;
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

/**
 * The measurement of one render, taken in the render's own first pass (`sizeInputAt` per input
 * element, while the element is in cache) and completed by `renderChars` on the output. Module-level
 * registers, reset by `beginInputSizes`: a render is synchronous and never nested. The per-position
 * array is reused, so a render allocates no size array.
 */
let scratch = new Float64Array(1024);
let inputChars = 0;
let prevTs: unknown;
let run = 0;
let positions: PositionCache | undefined;

/** `memo`: the memo `sizeInputAt` will be given (its position cache is sized for n here). */
export function beginInputSizes(n: number, memo?: SizeMemo): void {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  inputChars = n === 0 ? 2 : n + 1;
  prevTs = undefined;
  run = 0;
  positions = memo ? positionCache(memo, n) : undefined;
}

/** Size of input element i; must be called for i = 0..n-1 in order after `beginInputSizes(n, memo)`. */
export function sizeInputAt(i: number, x: unknown, memo: SizeMemo): void {
  const ts = typeof x === "object" && x !== null ? (x as { timestamp?: unknown }).timestamp : undefined;
  run = ts !== undefined && ts === prevTs ? run + 1 : 0;
  prevTs = ts;
  const c = charsAt(x, memo, run, i, positions);
  scratch[i] = c;
  inputChars += c;
}

/**
 * `JSON.stringify(input).length` and `JSON.stringify(output).length` for a render's output, which keeps
 * the input's order (see the module note). Uses the input sizes taken during the render when they
 * were taken (`premeasured`), else measures the input first. Output elements that are neither input elements in
 * order nor marked as produced fall back to the memo, so any output is measured exactly.
 * `premeasured`: the caller ran `beginInputSizes`/`sizeInputAt` over exactly this input just before.
 */
export function renderChars(input: readonly unknown[], output: readonly unknown[], memo?: SizeMemo, premeasured = false): { before: number; after: number } {
  const n = input.length;
  if (!premeasured || !memo) {
    beginInputSizes(n, memo);
    for (let i = 0; i < n; i++) {
      if (memo) { sizeInputAt(i, input[i], memo); continue; }
      const c = messageChars(input[i]);
      scratch[i] = c;
      inputChars += c;
    }
  }
  const sizes = scratch;
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
  return { before: inputChars, after };
}
