/**
 * The kinds of value a variable may hold: each turns the raw string (already trimmed, never empty)
 * into a value or reports what it expected. No kind reads anything but its argument.
 */

export interface ValueKind<T> {
  /** What a valid value looks like, for errors and the docs table ("an integer ≥ 1"). */
  expected: string;
  parse(raw: string): { ok: true; value: T } | { ok: false };
}

const ok = <T>(value: T) => ({ ok: true as const, value });
const bad = { ok: false as const };

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): ValueKind<number> {
  const expected = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  return {
    expected,
    parse: (raw) => {
      if (!/^-?\d+$/.test(raw)) return bad;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= min && n <= max ? ok(n) : bad;
    },
  };
}

const TRUE = new Set(["1", "true", "yes"]);
const FALSE = new Set(["0", "false", "no"]);

export const boolean: ValueKind<boolean> = {
  expected: "one of 1, 0, true, false, yes, no",
  parse: (raw) => {
    const v = raw.toLowerCase();
    return TRUE.has(v) ? ok(true) : FALSE.has(v) ? ok(false) : bad;
  },
};

export function oneOf<const V extends string>(values: readonly V[]): ValueKind<V> {
  return {
    expected: `one of ${values.join(", ")}`,
    parse: (raw) => ((values as readonly string[]).includes(raw) ? ok(raw as V) : bad),
  };
}

export function text(options: { pattern?: RegExp; expected?: string; minLength?: number } = {}): ValueKind<string> {
  const minLength = options.minLength ?? 1;
  return {
    expected: options.expected ?? (minLength > 1 ? `at least ${minLength} characters` : "a non-empty string"),
    parse: (raw) => (raw.length >= minLength && (!options.pattern || options.pattern.test(raw)) ? ok(raw) : bad),
  };
}

/** A comma-separated list; blanks between commas are dropped. */
export const list: ValueKind<string[]> = {
  expected: "a comma-separated list",
  parse: (raw) =>
    ok(
      raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
};

export const json: ValueKind<Record<string, unknown>> = {
  expected: "a JSON object",
  parse: (raw) => {
    try {
      const v: unknown = JSON.parse(raw);
      return v !== null && typeof v === "object" && !Array.isArray(v) ? ok(v as Record<string, unknown>) : bad;
    } catch {
      return bad;
    }
  },
};
