/**
 * Render sizes without serializing the whole array on every render (CAP-RENDER-2 reports
 * `JSON.stringify(array).length`). An array's JSON is `[` + element JSON joined by `,` + `]`, so its
 * length is 2 + (n-1) + Σ element lengths; element lengths are cached per message object.
 *
 * Messages are immutable (the host never edits one in place, and core never mutates), so a cached
 * length stays true for the object's lifetime; the WeakMap lets dropped messages be collected.
 */

const charsByMessage = new WeakMap<object, number>();

/** Length of the element's JSON as it appears inside an array. Never throws. */
export function messageChars(m: unknown): number {
  if (typeof m === "object" && m !== null) {
    const cached = charsByMessage.get(m);
    if (cached !== undefined) return cached;
    const n = serializedLength(m);
    charsByMessage.set(m, n);
    return n;
  }
  return serializedLength(m);
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

/** Equals `JSON.stringify(messages).length` for every serializable array. */
export function arrayChars(messages: readonly unknown[]): number {
  const n = messages.length;
  let total = n === 0 ? 2 : n + 1;
  for (let i = 0; i < n; i++) total += messageChars(messages[i]);
  return total;
}
